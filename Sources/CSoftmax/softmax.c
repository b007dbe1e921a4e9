#include "CSoftmax.h"
#include <stdint.h>
#include <string.h>

// Every multiply and add rounded on its own, as in Swift: no contraction into FMA.
#pragma clang fp contract(off)

// The body of Softmax.expNonPositive (Sources/ProactiveModels/Softmax.swift),
// operation for operation; see the comments there for the method.
static inline __attribute__((always_inline)) double exp_non_positive(double x) {
    const double clamped = (-708.0 >= x) ? -708.0 : x;   // Swift.max(x, -708.0)
    const double shifter = 6755399441055744.0;
    const double shifted = clamped * 1.4426950408889634 + shifter;
    const double n = shifted - shifter;
    const double r = clamped - n * 0.6931471803691238 - n * 1.9082149292705877e-10;
    double p = 2.0876756987868099e-09;
    p = p * r + 2.5052108385441719e-08;
    p = p * r + 2.7557319223985891e-07;
    p = p * r + 2.7557319223985893e-06;
    p = p * r + 2.4801587301587302e-05;
    p = p * r + 1.9841269841269841e-04;
    p = p * r + 1.3888888888888889e-03;
    p = p * r + 8.3333333333333332e-03;
    p = p * r + 4.1666666666666664e-02;
    p = p * r + 1.6666666666666666e-01;
    p = p * r + 0.5;
    p = p * r + 1;
    p = p * r + 1;
    int64_t shiftedBits, shifterBits;
    memcpy(&shiftedBits, &shifted, sizeof shiftedBits);
    memcpy(&shifterBits, &shifter, sizeof shifterBits);
    const uint64_t exponent = (uint64_t)(shiftedBits - shifterBits) + 1023u;
    const uint64_t scaleBits = exponent << 52;
    double scale;
    memcpy(&scale, &scaleBits, sizeof scale);
    return x < -708.0 ? 0.0 : p * scale;
}

__attribute__((target("avx2")))
static void exp_shifted_avx2(double *restrict s, size_t count, double maximum) {
    for (size_t i = 0; i < count; i++) s[i] = exp_non_positive(s[i] - maximum);
}

__attribute__((target("avx512f,avx512dq")))
static void exp_shifted_avx512(double *restrict s, size_t count, double maximum) {
    for (size_t i = 0; i < count; i++) s[i] = exp_non_positive(s[i] - maximum);
}

int proactive_exp_shifted(double *s, size_t count, double maximum) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) {
        exp_shifted_avx512(s, count, maximum);
        return 1;
    }
    if (__builtin_cpu_supports("avx2")) {
        exp_shifted_avx2(s, count, maximum);
        return 1;
    }
#endif
    (void)s; (void)count; (void)maximum;
    return 0;
}
