#ifndef PROACTIVE_CKERNELS_H
#define PROACTIVE_CKERNELS_H

#include <stddef.h>

// The scoring hot path's two loops over every target, in C so they can use
// AVX-512 or AVX2 where the CPU has them (the build targets plain x86-64).
// Each kernel gives the same bits whichever instruction set runs it.

/// s[i] = e^(s[i] - maximum) for i < count, bit for bit what the Swift
/// `Softmax.expNonPositive(s[i] - maximum)` computes (same operations in the
/// same order, every multiply-add fused), eight lanes at a time with AVX-512
/// (F and DQ) or four with AVX2 and FMA.
/// Returns 1 when done; 0 (nothing written) when the CPU has neither, so the
/// caller runs its own loop.
int proactive_exp_shifted(double *s, size_t count, double maximum);

/// The softmax of `s` shifted by its maximum, in place: the exponentials as
/// `proactive_exp_shifted`, their total summed in four lanes (s[i] goes to
/// lane i % 4 for i < count - count % 4, lanes combined as (0 + 1) + (2 + 3),
/// then the rest added in order), then every value times 1 / total.
/// Returns 1 when done; 0 (nothing written) when the CPU has neither
/// instruction set, so the caller runs its own loops (same order, same bits).
int proactive_softmax_shifted(double *s, size_t count, double maximum);

/// y[r] = Σ_c weights[c] · columns[c][r] for r < rows: a sum of `count`
/// single-precision columns (each `rows` long) scaled by double-precision
/// weights, accumulated in double precision. Each y[r] is computed in column
/// order from 0 with one fused multiply-add per column, so the result is the
/// same, bit for bit, with AVX-512, AVX2 and the portable loop.
void proactive_weighted_columns(const float *const *columns, const double *weights, size_t count, size_t rows, double *y);

/// out[t] = Σ_c weights[c] · sums[t · stride + kernels[c]] for t < targets, each
/// sum from 0 in c order, a product then an addition each rounded on its own (no
/// fused multiply-add): the same bits as that loop written target by target in
/// Swift. Four targets at a time (their sums overlap), with the rows of the
/// targets `lookahead` ahead prefetched (a cold model's rows are far apart: the
/// hardware's stride prefetching stops at each page).
void proactive_kernel_sums(const double *sums, size_t stride, const long *kernels, const double *weights, size_t count,
                           size_t targets, size_t lookahead, double *out);

/// Prefetches the cache lines of start ..< start + bytes (reads nothing; any address).
void proactive_prefetch(const void *start, size_t bytes);

/// The largest of s[0 ..< count] into *result, as `Softmax.largest` finds it: lanes that start
/// from s[0] and take a value only where it is larger (a NaN never enters; a leading NaN
/// stays), so the same value, up to the sign of a zero maximum (which lane's zero wins).
/// Returns 1 when done; 0 (nothing written) for count 0 or a CPU without AVX-512 or AVX2.
int proactive_largest(const double *s, size_t count, double *result);

/// The first i in from ..< count with !(p[i] < threshold) (p[i] >= threshold, or NaN),
/// or count when there is none: the selection of the best few targets skips
/// the many that cannot enter eight or four at a time.
size_t proactive_first_not_below(const double *p, size_t from, size_t count, double threshold);

/// The natural logarithm of x, within one unit in the last place; the same bits as
/// `proactive_log_each` gives for x (0 gives -infinity, a negative value or NaN gives NaN).
double proactive_log(double x);

/// values[i] = proactive_log(values[i]) for i < count, in place, several lanes at a time where
/// the CPU has AVX-512 or AVX2 (the same operations on each lane: the same bits as one by one).
void proactive_log_each(double *values, size_t count);

#endif
