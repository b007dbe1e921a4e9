#include "CKernels.h"
#include <stdint.h>
#include <string.h>

// The body of Softmax.expNonPositive (Sources/ProactiveModels/Softmax.swift),
// operation for operation, each multiply-add fused as there; see the comments
// there for the method. Only compiled into functions whose target has FMA.
#define EXP_NON_POSITIVE_BODY(x, result)                                                      \
    do {                                                                                      \
        const double clamped = (-708.0 >= (x)) ? -708.0 : (x);   /* Swift.max(x, -708.0) */   \
        const double shifter = 6755399441055744.0;                                            \
        const double shifted = __builtin_fma(clamped, 1.4426950408889634, shifter);           \
        const double n = shifted - shifter;                                                   \
        double r = __builtin_fma(-n, 0.6931471803691238, clamped);                            \
        r = __builtin_fma(-n, 1.9082149292705877e-10, r);                                     \
        double p = 2.0876756987868099e-09;                                                    \
        p = __builtin_fma(p, r, 2.5052108385441719e-08);                                      \
        p = __builtin_fma(p, r, 2.7557319223985891e-07);                                      \
        p = __builtin_fma(p, r, 2.7557319223985893e-06);                                      \
        p = __builtin_fma(p, r, 2.4801587301587302e-05);                                      \
        p = __builtin_fma(p, r, 1.9841269841269841e-04);                                      \
        p = __builtin_fma(p, r, 1.3888888888888889e-03);                                      \
        p = __builtin_fma(p, r, 8.3333333333333332e-03);                                      \
        p = __builtin_fma(p, r, 4.1666666666666664e-02);                                      \
        p = __builtin_fma(p, r, 1.6666666666666666e-01);                                      \
        p = __builtin_fma(p, r, 0.5);                                                         \
        p = __builtin_fma(p, r, 1);                                                           \
        p = __builtin_fma(p, r, 1);                                                           \
        int64_t shiftedBits, shifterBits;                                                     \
        memcpy(&shiftedBits, &shifted, sizeof shiftedBits);                                   \
        memcpy(&shifterBits, &shifter, sizeof shifterBits);                                   \
        const uint64_t exponent = (uint64_t)(shiftedBits - shifterBits) + 1023u;              \
        const uint64_t scaleBits = exponent << 52;                                            \
        double scale;                                                                         \
        memcpy(&scale, &scaleBits, sizeof scale);                                             \
        (result) = (x) < -708.0 ? 0.0 : p * scale;                                            \
    } while (0)

// Everything else rounded on its own, as in Swift: no contraction of the sums and scalings.
#pragma clang fp contract(off)

typedef double lanes4 __attribute__((vector_size(32)));

// The sum of the softmax: four lanes, combined (0 + 1) + (2 + 3), then the rest in order.
#define LANE_SUM(s, count, total)                                                             \
    do {                                                                                      \
        lanes4 lanes = {0, 0, 0, 0};                                                          \
        size_t i = 0;                                                                         \
        for (; i + 4 <= (count); i += 4) {                                                    \
            lanes4 next;                                                                      \
            memcpy(&next, (s) + i, sizeof next);                                              \
            lanes += next;                                                                    \
        }                                                                                     \
        (total) = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);                              \
        for (; i < (count); i++) (total) += (s)[i];                                           \
    } while (0)

#define SOFTMAX_BODY(s, count, maximum)                                                       \
    do {                                                                                      \
        for (size_t i = 0; i < (count); i++) { double e; EXP_NON_POSITIVE_BODY((s)[i] - (maximum), e); (s)[i] = e; } \
        double total;                                                                         \
        LANE_SUM(s, count, total);                                                            \
        const double inverse = 1 / total;                                                     \
        for (size_t i = 0; i < (count); i++) (s)[i] *= inverse;                               \
    } while (0)

__attribute__((target("avx2,fma")))
static void exp_shifted_avx2(double *restrict s, size_t count, double maximum) {
    for (size_t i = 0; i < count; i++) { double e; EXP_NON_POSITIVE_BODY(s[i] - maximum, e); s[i] = e; }
}

__attribute__((target("avx512f,avx512dq,fma")))
static void exp_shifted_avx512(double *restrict s, size_t count, double maximum) {
    for (size_t i = 0; i < count; i++) { double e; EXP_NON_POSITIVE_BODY(s[i] - maximum, e); s[i] = e; }
}

__attribute__((target("avx2,fma")))
static void softmax_avx2(double *restrict s, size_t count, double maximum) { SOFTMAX_BODY(s, count, maximum); }

__attribute__((target("avx512f,avx512dq,fma")))
static void softmax_avx512(double *restrict s, size_t count, double maximum) { SOFTMAX_BODY(s, count, maximum); }

static int has_avx512(void) {
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

static int has_avx2(void) {
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

int proactive_exp_shifted(double *s, size_t count, double maximum) {
    if (has_avx512()) {
        exp_shifted_avx512(s, count, maximum);
        return 1;
    }
    if (has_avx2()) {
        exp_shifted_avx2(s, count, maximum);
        return 1;
    }
    return 0;
}

int proactive_softmax_shifted(double *s, size_t count, double maximum) {
    if (has_avx512()) {
        softmax_avx512(s, count, maximum);
        return 1;
    }
    if (has_avx2()) {
        softmax_avx2(s, count, maximum);
        return 1;
    }
    return 0;
}
