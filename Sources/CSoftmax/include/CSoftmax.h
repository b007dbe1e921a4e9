#ifndef PROACTIVE_CSOFTMAX_H
#define PROACTIVE_CSOFTMAX_H

#include <stddef.h>

/// s[i] = e^(s[i] - maximum) for i < count, bit for bit what the Swift
/// `Softmax.expNonPositive(s[i] - maximum)` computes (same operations in the
/// same order, no fused multiply-add), eight lanes at a time with AVX-512
/// (F and DQ) or four with AVX2.
/// Returns 1 when done; 0 (nothing written) when the CPU has neither, so the
/// caller runs its own loop.
int proactive_exp_shifted(double *s, size_t count, double maximum);

#endif
