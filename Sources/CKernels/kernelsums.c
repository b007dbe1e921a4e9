#include "CKernels.h"

// Each sum is taken as in Swift: a product, then an addition, each rounded on its own.
#pragma clang fp contract(off)

// Prefetches the lines of sums[t * stride + first ... t * stride + last] (one prefetch every 8 doubles, then the last).
static inline void prefetch_span(const double *sums, size_t t, size_t stride, size_t first, size_t last) {
    const double *row = sums + t * stride;
    for (size_t k = first; k < last; k += 8) __builtin_prefetch(row + k);
    __builtin_prefetch(row + last);
}

void proactive_kernel_sums(const double *sums, size_t stride, const long *kernels, const double *weights, size_t count,
                           size_t targets, size_t lookahead, double *out) {
    if (targets == 0) return;
    size_t first = 0, last = 0;
    for (size_t c = 0; c < count; c++) {
        const size_t k = (size_t)kernels[c];
        if (c == 0 || k < first) first = k;
        if (c == 0 || k > last) last = k;
    }
    if (count > 0) {
        for (size_t t = 0; t < lookahead && t < targets; t++) prefetch_span(sums, t, stride, first, last);
    }
    const size_t end = targets - 1;
    for (size_t t = 0; t < targets; t += 4) {
        // The last group's lanes past the end repeat the last target (the same value written again).
        const size_t b0 = t * stride;
        const size_t b1 = (t + 1 < end ? t + 1 : end) * stride;
        const size_t b2 = (t + 2 < end ? t + 2 : end) * stride;
        const size_t b3 = (t + 3 < end ? t + 3 : end) * stride;
        if (count > 0) {
            for (size_t a = t + lookahead; a < t + lookahead + 4 && a < targets; a++) prefetch_span(sums, a, stride, first, last);
        }
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (size_t c = 0; c < count; c++) {
            const size_t k = (size_t)kernels[c];
            const double w = weights[c];
            s0 += w * sums[b0 + k];
            s1 += w * sums[b1 + k];
            s2 += w * sums[b2 + k];
            s3 += w * sums[b3 + k];
        }
        out[t] = s0;
        if (t + 1 <= end) out[t + 1] = s1;
        if (t + 2 <= end) out[t + 2] = s2;
        if (t + 3 <= end) out[t + 3] = s3;
    }
}

void proactive_prefetch(const void *start, size_t bytes) {
    const char *p = (const char *)start;
    for (size_t offset = 0; offset < bytes; offset += 64) __builtin_prefetch(p + offset);
    if (bytes > 0) __builtin_prefetch(p + bytes - 1);
}
