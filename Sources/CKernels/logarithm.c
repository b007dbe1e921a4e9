#include "CKernels.h"
#include <stdint.h>
#include <string.h>

// The natural logarithm as one sequence of IEEE operations, so a value's logarithm has the
// same bits whether it is taken alone (`proactive_log`) or in a vector of values
// (`proactive_log_each`, which the compiler runs four or eight lanes at a time where the CPU
// has AVX2 or AVX-512: the same operations on each lane, nothing fused or reordered).
//
// The method is the classic reduction: x = 2^k · m with m in [√2/2, √2), f = m − 1,
// s = f / (2 + f), and log(1 + f) = f − (f²/2 − s · (f²/2 + R(s²))), R a degree-14 even
// polynomial in s (the minimax coefficients below, published with the reduction in Sun's
// fdlibm); log x = k · ln 2 + log(1 + f), ln 2 split in a high part exact in k · ln 2
// and a low part. Error below one unit in the last place. Subnormal inputs are scaled by 2^54
// first; zero gives −∞, a negative value or NaN gives NaN, +∞ gives +∞.
#pragma clang fp contract(off)

static inline double log_body(double x) {
    const double two54 = 18014398509481984.0;
    const int subnormal = x < 2.2250738585072014e-308;
    const double scaled = subnormal ? x * two54 : x;
    uint64_t bits;
    memcpy(&bits, &scaled, sizeof bits);
    int64_t k = (int64_t)((bits >> 52) & 0x7ff) - 1023 - (subnormal ? 54 : 0);
    const uint64_t mantissaBits = (bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
    double m;
    memcpy(&m, &mantissaBits, sizeof m);
    const int high = m > 1.4142135623730951;
    m = high ? m * 0.5 : m;
    k = high ? k + 1 : k;
    const double f = m - 1.0;
    const double halfSquare = 0.5 * f * f;
    const double s = f / (2.0 + f);
    const double z = s * s;
    const double w = z * z;
    const double t1 = w * (3.999999999940941908e-01 + w * (2.222219843214978396e-01 + w * 1.531383769920937332e-01));
    const double t2 = z * (6.666666666666735130e-01 + w * (2.857142874366239149e-01 + w * (1.818357216161805012e-01
                                                                                           + w * 1.479819860511658591e-01)));
    const double r = t2 + t1;
    const double dk = (double)(int32_t)k;
    const double result = dk * 6.93147180369123816490e-01 - ((halfSquare - (s * (halfSquare + r) + dk * 1.90821492927058770002e-10)) - f);
    // Special values: NaN stays NaN, a negative value is NaN, 0 is -inf, +inf stays +inf.
    const double special = x != x ? x : x < 0 ? (x - x) / 0.0 : x == 0 ? -1.0 / 0.0 : x;
    return (x != x || x <= 0 || x == 1.0 / 0.0) ? special : result;
}

double proactive_log(double x) { return log_body(x); }

__attribute__((target("avx512f")))
static void log_each_avx512(double *values, size_t count) {
    for (size_t i = 0; i < count; i++) values[i] = log_body(values[i]);
}

__attribute__((target("avx2")))
static void log_each_avx2(double *values, size_t count) {
    for (size_t i = 0; i < count; i++) values[i] = log_body(values[i]);
}

void proactive_log_each(double *values, size_t count) {
    if (__builtin_cpu_supports("avx512f")) {
        log_each_avx512(values, count);
    } else if (__builtin_cpu_supports("avx2")) {
        log_each_avx2(values, count);
    } else {
        for (size_t i = 0; i < count; i++) values[i] = log_body(values[i]);
    }
}
