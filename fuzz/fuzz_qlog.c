/* fuzz_qlog: both searchd query-log line formats. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hk_qlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = '\0';
    hk_qrec q;
    char *buf = malloc(size + 1);
    q.query = buf;
    q.qcap = size + 1;
    int col;
    const char *what;
    (void)hk_qlog_sphinxql(s, &q, &col, &what);
    (void)hk_qlog_plain(s, &q, &col, &what);
    free(buf);
    free(s);
    return 0;
}
