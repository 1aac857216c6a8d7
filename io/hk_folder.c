/* hk_folder: a finished run's files, either engine's (see hk_folder.h). */
#include "hk_folder.h"

#include <stdlib.h>
#include "hk_file.h"

static double ms(double us) { return us / 1000.0; }

static int summary(const hk_ledger *led, const char *dir, hk_err *err)
{
    int n;
    hk_rep_row *r = hk_rep_rows(led, &n);
    hk_out o;
    if (!r || hk_out_open(&o, dir, "summary.csv", err) < 0) {
        free(r);
        return r ? -1 : hk_err_set(err, dir, 0, 0, "out of memory");
    }
    hk_rep_summary_csv(o.f, r, n);
    free(r);
    return hk_out_commit(&o, err);
}

/* cdf.csv: the 999 permille quantiles and the 0.9999 one, ms. */
static int cdf(const hk_hist *all, const char *dir, hk_err *err)
{
    hk_out o;
    if (hk_out_open(&o, dir, "cdf.csv", err) < 0)
        return -1;
    fputs("quantile,latency_ms\n", o.f);
    for (int k = 1; k <= 999; k++)
        fprintf(o.f, "%.3f,%.4f\n", k / 1000.0, ms(hk_hist_quantile(all, k / 1000.0)));
    fprintf(o.f, "0.9999,%.4f\n", ms(hk_hist_quantile(all, 0.9999)));
    return hk_out_commit(&o, err);
}

int hk_folder_write(const hk_folder *f, const char *dir, hk_err *err)
{
    int rc = hk_out_write_all(dir, "agent_status.txt", f->status ? f->status : "",
                              f->status ? f->status_len : 0, err);
    if (rc == 0)
        rc = summary(f->led, dir, err);
    if (rc == 0)
        rc = hk_ans_convergence_csv(f->ans, dir, err);
    if (rc == 0 && f->all)
        rc = cdf(f->all, dir, err);
    if (rc == 0)
        rc = hk_ans_findings_csv(f->ans, dir, err);
    if (rc == 0)
        rc = hk_ans_findings_json(f->ans, dir, err);
    if (rc == 0)
        rc = hk_ans_readmission_csv(f->ans, dir, err);
    if (rc == 0)
        rc = hk_ans_timeline_csv(f->ans, dir, err);
    if (rc == 0)
        rc = hk_rep_run_csv(f->run, dir, err);
    return rc;
}
