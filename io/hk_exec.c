/* hk_exec: running `#!` configs (see hk_exec.h). */
#include "hk_exec.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "hk_file.h"

extern char **environ;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read the child's stdout until EOF, the size limit or the deadline. 0 ok, else a reason. */
static const char *drain(int fd, char **buf, size_t *len)
{
    size_t cap = 1 << 16;
    char *b = malloc(cap);
    int64_t deadline = now_ms() + HK_EXEC_TIMEOUT_MS;
    *len = 0;
    while (b) {
        struct pollfd p = {fd, POLLIN, 0};
        int64_t left = deadline - now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) == 0) {
            free(b);
            return "it ran for more than 30 s";
        }
        ssize_t n = read(fd, b + *len, cap - *len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        *len += (size_t)n;
        if (*len > HK_FILE_MAX) {
            free(b);
            return "it printed more than 16 MiB";
        }
        if (*len + 1 == cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb)
                free(b);
            b = nb;
        }
    }
    if (!b)
        return "out of memory";
    b[*len] = '\0';
    *buf = b;
    return NULL;
}

int hk_exec_config(const char *path, const char *shebang, char **out, size_t *len, hk_err *err)
{
    char line[512];
    snprintf(line, sizeof line, "%s", shebang);
    line[strcspn(line, "\r\n")] = '\0';
    char *prog = line + strspn(line, " \t"), *arg = prog + strcspn(prog, " \t");
    if (*arg) {
        *arg++ = '\0';
        arg += strspn(arg, " \t");
        for (char *e = arg + strlen(arg); e > arg && isspace((unsigned char)e[-1]);)
            *--e = '\0';
    }
    if (!*prog)
        return hk_err_set(err, path, 1, 3, "#!: expected an interpreter's path");
    char *args[4] = {prog, *arg ? arg : (char *)path, *arg ? (char *)path : NULL, NULL};
    int fds[2];
    if (pipe(fds) < 0)
        return hk_err_set(err, path, 1, 1, "#!: pipe: %s", strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    pid_t pid;
    int rc = posix_spawn(&pid, prog, &fa, NULL, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        return hk_err_set(err, path, 1, 3, "#!: cannot run '%s': %s", prog, strerror(rc));
    }
    const char *why = drain(fds[0], out, len);
    int have_out = why == NULL;
    close(fds[0]);
    if (why)
        kill(pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!why && WIFEXITED(st) && WEXITSTATUS(st) != 0)
        why = "it exited with a non-zero status";
    else if (!why && WIFSIGNALED(st))
        why = "it was killed by a signal";
    if (why) {
        if (have_out)
            free(*out);
        return hk_err_set(err, path, 1, 3, "#!: running '%s' failed: %s", prog, why);
    }
    return 0;
}
