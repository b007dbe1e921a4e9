#include "CKernels.h"
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx512f")))
static size_t first_not_below_avx512(const double *p, size_t i, size_t count, double threshold) {
    const __m512d t = _mm512_set1_pd(threshold);
    for (; i + 8 <= count; i += 8) {
        // Not-less-than, unordered: true for p >= threshold and for NaN, as !(p < threshold).
        const __mmask8 hit = _mm512_cmp_pd_mask(_mm512_loadu_pd(p + i), t, _CMP_NLT_UQ);
        if (hit) return i + (size_t)__builtin_ctz(hit);
    }
    for (; i < count; i++) if (!(p[i] < threshold)) return i;
    return count;
}

__attribute__((target("avx2")))
static size_t first_not_below_avx2(const double *p, size_t i, size_t count, double threshold) {
    const __m256d t = _mm256_set1_pd(threshold);
    for (; i + 4 <= count; i += 4) {
        const int hit = _mm256_movemask_pd(_mm256_cmp_pd(_mm256_loadu_pd(p + i), t, _CMP_NLT_UQ));
        if (hit) return i + (size_t)__builtin_ctz((unsigned)hit);
    }
    for (; i < count; i++) if (!(p[i] < threshold)) return i;
    return count;
}

// Every lane starts from s[0] and takes the next value where it is smaller (`<`: false
// for NaN), as `Softmax.largest`'s lanes do; four accumulators (the comparisons of one
// block do not wait for the previous block's), which then meet under the same rule, then
// their lanes in order, then the values after the last whole block.
#define LARGEST_BODY(real, mask, width, s, count, out)                                        \
    do {                                                                                      \
        real a, b, c, d, na, nb, nc, nd;                                                      \
        for (int k = 0; k < (width); k++) a[k] = (s)[0];                                      \
        b = a;                                                                                \
        c = a;                                                                                \
        d = a;                                                                                \
        size_t i = 1;                                                                         \
        for (; i + 4 * (width) <= (count); i += 4 * (width)) {                                \
            memcpy(&na, (s) + i, sizeof na);                                                  \
            memcpy(&nb, (s) + i + (width), sizeof nb);                                        \
            memcpy(&nc, (s) + i + 2 * (width), sizeof nc);                                    \
            memcpy(&nd, (s) + i + 3 * (width), sizeof nd);                                    \
            a = TAKE_LARGER(real, mask, a, na);                                               \
            b = TAKE_LARGER(real, mask, b, nb);                                               \
            c = TAKE_LARGER(real, mask, c, nc);                                               \
            d = TAKE_LARGER(real, mask, d, nd);                                               \
        }                                                                                     \
        a = TAKE_LARGER(real, mask, a, b);                                                    \
        c = TAKE_LARGER(real, mask, c, d);                                                    \
        a = TAKE_LARGER(real, mask, a, c);                                                    \
        double result = a[0];                                                                 \
        for (int lane = 1; lane < (width); lane++) if (result < a[lane]) result = a[lane];    \
        for (; i < (count); i++) if (result < (s)[i]) result = (s)[i];                        \
        (out) = result;                                                                       \
    } while (0)

// Lane by lane: next where lanes < next, else lanes (a comparison gives all ones or zeros).
#define TAKE_LARGER(real, mask, lanes, next)                                                  \
    ((real)((((mask)((lanes) < (next))) & (mask)(next)) | (~((mask)((lanes) < (next))) & (mask)(lanes))))

typedef double real8 __attribute__((vector_size(64)));
typedef long long mask8 __attribute__((vector_size(64)));
typedef double real4 __attribute__((vector_size(32)));
typedef long long mask4 __attribute__((vector_size(32)));

__attribute__((target("avx512f")))
static double largest_avx512(const double *s, size_t count) {
    double out;
    LARGEST_BODY(real8, mask8, 8, s, count, out);
    return out;
}

__attribute__((target("avx2")))
static double largest_avx2(const double *s, size_t count) {
    double out;
    LARGEST_BODY(real4, mask4, 4, s, count, out);
    return out;
}
#endif

int proactive_largest(const double *s, size_t count, double *result) {
    if (count == 0) return 0;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512f")) {
        *result = largest_avx512(s, count);
        return 1;
    }
    if (__builtin_cpu_supports("avx2")) {
        *result = largest_avx2(s, count);
        return 1;
    }
#endif
    return 0;
}

size_t proactive_first_not_below(const double *p, size_t from, size_t count, double threshold) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512f")) return first_not_below_avx512(p, from, count, threshold);
    if (__builtin_cpu_supports("avx2")) return first_not_below_avx2(p, from, count, threshold);
#endif
    for (size_t i = from; i < count; i++) if (!(p[i] < threshold)) return i;
    return count;
}
