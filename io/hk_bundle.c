/* hk_bundle: a scenario and the files it names, copied into one folder (see hk_bundle.h). */
#include "hk_bundle.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hk_buf.h"
#include "hk_file.h"

static int sep_before(const char *text, const char *at)
{
    return at == text || strchr("(=, \t\n", at[-1]) != NULL;
}

static int sep_after(char c) { return c == '\0' || strchr(",) \t\r\n}#", c) != NULL; }

char *hk_bundle_rewrite(const char *text, const char *const *names, const char *const *repl,
                        int n)
{
    hk_buf b;
    hk_buf_init(&b);
    for (const char *s = text; *s;) {
        int hit = -1;
        size_t best = 0;
        for (int k = 0; k < n; k++) {
            size_t l = strlen(names[k]);
            if (l > best && !strncmp(s, names[k], l) && sep_before(text, s) && sep_after(s[l])) {
                hit = k;
                best = l;
            }
        }
        if (hit >= 0) {
            hk_buf_put(&b, repl[hit], strlen(repl[hit]));
            s += best;
        } else {
            hk_buf_put(&b, s, 1);
            s++;
        }
    }
    if (b.oom || !b.s) {
        hk_buf_free(&b);
        return b.oom ? NULL : strdup("");
    }
    return b.s;
}

/* src copied to dir/name, complete or absent. */
static int copy_file(const char *src, const char *dir, const char *name, hk_err *err)
{
    if (hk_file_regular(src, err) < 0)
        return -1;
    int fd = open(src, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return hk_err_set(err, src, 0, 0, "cannot open: %s", strerror(errno));
    hk_out o;
    if (hk_out_open(&o, dir, name, err) < 0) {
        close(fd);
        return -1;
    }
    char buf[65536];
    ssize_t got;
    while ((got = read(fd, buf, sizeof buf)) > 0)
        if (fwrite(buf, 1, (size_t)got, o.f) != (size_t)got)
            break;
    close(fd);
    if (got != 0) {
        hk_out_abort(&o);
        return hk_err_set(err, src, 0, 0, "cannot copy into %s/%s", dir, name);
    }
    return hk_out_commit(&o, err);
}

int hk_bundle_write(const hk_loaded *l, const char *dir, hk_err *err)
{
    hk_named named[HK_NAMED_MAX];
    int n = hk_loaded_files(l, named, HK_NAMED_MAX);
    char bdir[1100], fdir[1110];
    snprintf(bdir, sizeof bdir, "%s/bundle", dir);
    snprintf(fdir, sizeof fdir, "%s/files", bdir);
    if (hk_mkdirs(n ? fdir : bdir, err) < 0)
        return -1;
    const char *names[HK_NAMED_MAX], *repl[HK_NAMED_MAX];
    char rbuf[HK_NAMED_MAX][300];
    for (int k = 0; k < n; k++) {
        const char *base = strrchr(named[k].path, '/');
        base = base ? base + 1 : named[k].path;
        snprintf(rbuf[k], sizeof rbuf[k], "files/%d-%.200s", k + 1, base);
        for (char *c = rbuf[k] + 6; *c; c++) /* a name any reader takes as one token */
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *c))
                *c = '_';
        names[k] = named[k].name;
        repl[k] = rbuf[k];
        if (copy_file(named[k].path, fdir, rbuf[k] + 6, err) < 0)
            return -1;
    }
    char *text = hk_bundle_rewrite(l->text, names, repl, n);
    if (!text)
        return hk_err_set(err, bdir, 0, 0, "out of memory");
    int rc = hk_out_write_all(bdir, "scenario.scn", text, strlen(text), err);
    free(text);
    return rc;
}
