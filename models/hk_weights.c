/* hk_weights: RebalanceWeights of Manticore, Sphinx 2.2.11 and the manual.
 * Manticore and Sphinx compute in float; so do we, for the same roundings. */
#include "hk_weights.h"

void hk_weights_manticore_init(double *w, int n)
{
    for (int i = 0; i < n; i++)
        w[i] = 100.0f / (float)n;
}

void hk_weights_manticore(const int64_t *t, double *w, int n)
{
    float sum = 0.0f;
    int alive = 0;
    for (int i = 0; i < n; i++)
        if (t[i] > 0) {
            sum += 1.0f / (float)t[i];
            alive++;
        }
    if (!alive)
        return;
    for (int i = 0; i < n; i++)
        w[i] = t[i] > 0 ? 100.0f * (1.0f / (float)t[i]) / sum : 0.0f;
}

void hk_weights_sphinx2_init(double *w, int n)
{
    for (int i = 0; i < n; i++)
        w[i] = (double)(0xFFFF / n);
}

void hk_weights_sphinx2(const int64_t *t, double *w, int n)
{
    int64_t sum = 0;
    int timed = 0;
    for (int i = 0; i < n; i++)
        if (t[i] > 0) {
            sum += t[i];
            timed++;
        }
    if (sum <= 0)
        return;
    int empties = n - timed;
    for (int i = 0; i < n; i++) {
        float f = 1.0f - (float)t[i] / (float)sum;
        if (empties > 0)
            f *= 0.9f;
        if (t[i] <= 0)
            f = 0.1f / (float)empties;
        else if (timed == 1)
            f = 0.9f;
        w[i] = (double)(int)(f * 65535.0f);
    }
}

void hk_weights_documented_init(double *w, int n)
{
    for (int i = 0; i < n; i++)
        w[i] = 1.0 / n;
}

void hk_weights_documented(const int64_t *t, double *w, int n)
{
    double untimed = 0.0, total = 0.0, q = 0.0;
    for (int i = 0; i < n; i++) {
        total += w[i];
        if (t[i] > 0)
            q += w[i] / (double)t[i];
        else
            untimed += w[i];
    }
    if (q <= 0.0 || total <= 0.0)
        return;
    double mass = 1.0 - untimed / total;
    for (int i = 0; i < n; i++)
        w[i] = t[i] > 0 ? mass * (w[i] / (double)t[i]) / q : w[i] / total;
}
