/* hk_weights: the mirror-weight formulas ("RebalanceWeights") of each variant.
 * Inputs are per-mirror timers (average microseconds per event over the
 * window; 0 = no timing); weights are updated in place, in the variant's own
 * unit (percent floats, Sphinx WORDs, or probabilities). The pick probability
 * of a mirror is always w_i / sum(w) over the candidates. */
#ifndef HK_WEIGHTS_H
#define HK_WEIGHTS_H

#include <stdint.h>

/* Manticore: w_i = 100 * (1/t_i) / sum(1/t_j) over timed mirrors; untimed get 0;
 * nothing timed keeps the old weights. Initial 100/N. */
void hk_weights_manticore_init(double *w, int n);
void hk_weights_manticore(const int64_t *t, double *w, int n);

/* Sphinx 2.2.11: f_i = 1 - t_i/S (x0.9 if some are untimed; untimed share 0.1;
 * a single timed mirror gets 0.9), stored as int(f * 65535). Initial 65535/N. */
void hk_weights_sphinx2_init(double *w, int n);
void hk_weights_sphinx2(const int64_t *t, double *w, int n);

/* The manual's rule: p_i <- p_i / t_i, normalised; untimed mirrors keep their p. */
void hk_weights_documented_init(double *w, int n);
void hk_weights_documented(const int64_t *t, double *w, int n);

#endif
