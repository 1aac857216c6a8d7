/* fuzz_csv: the CSV trace reader (libcsv, streamed) on a file holding the input. */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include "hk_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/hk_fuzz_csv_%d.csv", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    hk_trace t;
    hk_err e;
    hk_qrec q;
    if (hk_trace_open(&t, path, HK_TRACE_CSV, NULL, &e) == 0) {
        for (int k = 0; k < 10000 && hk_trace_next(&t, &q, &e) == 1; k++)
            ;
    }
    hk_trace_close(&t);
    unlink(path);
    return 0;
}
