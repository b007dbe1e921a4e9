#include "CKernels.h"
#include <math.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// y[r] = Σ_c w[c] · a[c][r], each y[r] as fma(w[c], a[c][r], ·) in column order from 0.
// Every path below performs exactly those operations per row (vector lanes are
// rows), so they agree bit for bit; they differ only in how many rows share
// one instruction.

static void weighted_rows_portable(const float *const *a, const double *w, size_t count, size_t from, size_t rows, double *y) {
    for (size_t r = from; r < rows; r++) {
        double total = 0;
        for (size_t c = 0; c < count; c++) total = fma(w[c], (double)a[c][r], total);
        y[r] = total;
    }
}

#if defined(__x86_64__)
// Above this many bytes of columns the product streams them from beyond L2; each
// column's next lines are then prefetched (the hardware follows only so many
// streams at once, and a moment reads 30 to 40 columns). Below it they stay in
// cache and a prefetch would only cost an instruction.
#define PREFETCH_ABOVE_BYTES ((size_t)1 << 19)
// How far ahead, in floats: 512 bytes, eight lines (the best of 128 to 1,024
// floats on a 10,000 x 37 product; see BENCHMARKS.md).
#define PREFETCH_AHEAD 128

__attribute__((target("avx512f")))
static void weighted_columns_avx512(const float *const *a, const double *w, size_t count, size_t rows, double *y) {
    size_t r = 0;
    const int prefetch = count * rows * sizeof(float) > PREFETCH_ABOVE_BYTES;
    // 32 rows at a time: four accumulators of eight doubles, each column read as 32 floats.
    for (; r + 32 <= rows; r += 32) {
        __m512d y0 = _mm512_setzero_pd(), y1 = y0, y2 = y0, y3 = y0;
        for (size_t c = 0; c < count; c++) {
            const float *p = a[c] + r;
            if (prefetch) {
                // Prefetches read nothing and never fault, past the column's end too.
                _mm_prefetch((const char *)(p + PREFETCH_AHEAD), _MM_HINT_T0);
                _mm_prefetch((const char *)(p + PREFETCH_AHEAD + 16), _MM_HINT_T0);
            }
            const __m512d weight = _mm512_set1_pd(w[c]);
            y0 = _mm512_fmadd_pd(weight, _mm512_cvtps_pd(_mm256_loadu_ps(p)), y0);
            y1 = _mm512_fmadd_pd(weight, _mm512_cvtps_pd(_mm256_loadu_ps(p + 8)), y1);
            y2 = _mm512_fmadd_pd(weight, _mm512_cvtps_pd(_mm256_loadu_ps(p + 16)), y2);
            y3 = _mm512_fmadd_pd(weight, _mm512_cvtps_pd(_mm256_loadu_ps(p + 24)), y3);
        }
        _mm512_storeu_pd(y + r, y0);
        _mm512_storeu_pd(y + r + 8, y1);
        _mm512_storeu_pd(y + r + 16, y2);
        _mm512_storeu_pd(y + r + 24, y3);
    }
    for (; r + 8 <= rows; r += 8) {
        __m512d y0 = _mm512_setzero_pd();
        for (size_t c = 0; c < count; c++) {
            y0 = _mm512_fmadd_pd(_mm512_set1_pd(w[c]), _mm512_cvtps_pd(_mm256_loadu_ps(a[c] + r)), y0);
        }
        _mm512_storeu_pd(y + r, y0);
    }
    weighted_rows_portable(a, w, count, r, rows, y);
}

__attribute__((target("avx2,fma")))
static void weighted_columns_avx2(const float *const *a, const double *w, size_t count, size_t rows, double *y) {
    size_t r = 0;
    const int prefetch = count * rows * sizeof(float) > PREFETCH_ABOVE_BYTES;
    // 16 rows at a time: four accumulators of four doubles.
    for (; r + 16 <= rows; r += 16) {
        __m256d y0 = _mm256_setzero_pd(), y1 = y0, y2 = y0, y3 = y0;
        for (size_t c = 0; c < count; c++) {
            const float *p = a[c] + r;
            // A block reads one 64-byte line of each column: one prefetch.
            if (prefetch) _mm_prefetch((const char *)(p + PREFETCH_AHEAD), _MM_HINT_T0);
            const __m256d weight = _mm256_set1_pd(w[c]);
            y0 = _mm256_fmadd_pd(weight, _mm256_cvtps_pd(_mm_loadu_ps(p)), y0);
            y1 = _mm256_fmadd_pd(weight, _mm256_cvtps_pd(_mm_loadu_ps(p + 4)), y1);
            y2 = _mm256_fmadd_pd(weight, _mm256_cvtps_pd(_mm_loadu_ps(p + 8)), y2);
            y3 = _mm256_fmadd_pd(weight, _mm256_cvtps_pd(_mm_loadu_ps(p + 12)), y3);
        }
        _mm256_storeu_pd(y + r, y0);
        _mm256_storeu_pd(y + r + 4, y1);
        _mm256_storeu_pd(y + r + 8, y2);
        _mm256_storeu_pd(y + r + 12, y3);
    }
    for (; r + 4 <= rows; r += 4) {
        __m256d y0 = _mm256_setzero_pd();
        for (size_t c = 0; c < count; c++) {
            y0 = _mm256_fmadd_pd(_mm256_set1_pd(w[c]), _mm256_cvtps_pd(_mm_loadu_ps(a[c] + r)), y0);
        }
        _mm256_storeu_pd(y + r, y0);
    }
    weighted_rows_portable(a, w, count, r, rows, y);
}
#endif

void proactive_weighted_columns(const float *const *columns, const double *weights, size_t count, size_t rows, double *y) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512f")) {
        weighted_columns_avx512(columns, weights, count, rows, y);
        return;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        weighted_columns_avx2(columns, weights, count, rows, y);
        return;
    }
#endif
    weighted_rows_portable(columns, weights, count, 0, rows, y);
}
