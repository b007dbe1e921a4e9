#include "CKernels.h"

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
#endif

size_t proactive_first_not_below(const double *p, size_t from, size_t count, double threshold) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512f")) return first_not_below_avx512(p, from, count, threshold);
    if (__builtin_cpu_supports("avx2")) return first_not_below_avx2(p, from, count, threshold);
#endif
    for (size_t i = from; i < count; i++) if (!(p[i] < threshold)) return i;
    return count;
}
