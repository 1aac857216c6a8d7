/* hk_quote: names quoted for the shell, YAML and gnuplot (see hk_quote.h). */
#include "hk_quote.h"

#include <string.h>

/* The length of the UTF-8 sequence at s, or 0 when it is not one. */
static int utf8_len(const unsigned char *s)
{
    int n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
          : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
    if (n == 2 && s[0] < 0xc2)
        return 0; /* overlong */
    for (int k = 1; k < n; k++)
        if ((s[k] & 0xc0) != 0x80)
            return 0;
    return n;
}

int hk_name_check(const char *what, const char *s, hk_err *err)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; u[i];) {
        int n = utf8_len(u + i);
        if (u[i] < 0x20 || u[i] == 0x7f)
            return hk_err_set(err, what, 0, 0, "holds the control character 0x%02x at byte %zu "
                              "(%s): expected a name without control characters, which no "
                              "quoting makes safe in a script, a batch directive or YAML", u[i],
                              i, u[i] == '\n' ? "a newline" : u[i] == '\r' ? "a carriage return"
                              : u[i] == '\t' ? "a tab" : "not printable");
        if (!n)
            return hk_err_set(err, what, 0, 0, "byte 0x%02x at %zu is not UTF-8: expected a "
                              "UTF-8 name (YAML must be)", u[i], i);
        i += (size_t)n;
    }
    return 0;
}

void hk_quote_sh(hk_buf *b, const char *s)
{
    hk_buf_put(b, "'", 1);
    for (const char *q; (q = strchr(s, '\'')); s = q + 1) {
        hk_buf_put(b, s, (size_t)(q - s));
        hk_buf_put(b, "'\\''", 4);
    }
    hk_buf_put(b, s, strlen(s));
    hk_buf_put(b, "'", 1);
}

void hk_quote_yaml(hk_buf *b, const char *s, int k8s)
{
    hk_buf_put(b, "'", 1);
    for (; *s; s++) {
        if (*s == '\'')
            hk_buf_put(b, "'", 1);
        else if (k8s && *s == '$')
            hk_buf_put(b, "$", 1);
        hk_buf_put(b, s, 1);
    }
    hk_buf_put(b, "'", 1);
}

int hk_quote_gp(const char *s, char *out, size_t n)
{
    size_t o = 0;
    for (; *s; s++) {
        if (o + 3 > n)
            return -1;
        if (*s == '\'')
            out[o++] = '\'';
        out[o++] = *s;
    }
    if (o + 1 > n)
        return -1;
    out[o] = '\0';
    return 0;
}
