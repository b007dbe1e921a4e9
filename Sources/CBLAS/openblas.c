// Forwarders to OpenBLAS's CBLAS and LAPACKE, opened at first use (include/CBLAS.h says why).
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "CBLAS.h"

static const char *const sonames[2] = {"libopenblas.so.0", "liblapacke.so.3"};

// Opening twice in a race is harmless: dlopen counts references and returns the same handle.
static void *library(int which) {
    static void *handles[2];
    void *handle = __atomic_load_n(&handles[which], __ATOMIC_ACQUIRE);
    if (handle != NULL) return handle;
    handle = dlopen(sonames[which], RTLD_NOW | RTLD_GLOBAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        fprintf(stderr, "proactive: cannot load %s (%s); install libopenblas-dev and liblapacke-dev\n",
                sonames[which], reason ? reason : "not found");
        abort();
    }
    __atomic_store_n(&handles[which], handle, __ATOMIC_RELEASE);
    return handle;
}

static void *resolve(void **slot, const char *name, int which) {
    void *function = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (function != NULL) return function;
    function = dlsym(library(which), name);
    if (function == NULL) {
        fprintf(stderr, "proactive: %s has no %s; install libopenblas-dev and liblapacke-dev\n", sonames[which], name);
        abort();
    }
    __atomic_store_n(slot, function, __ATOMIC_RELEASE);
    return function;
}

#define TARGET(which, NAME) ((__typeof__(NAME) *)resolve(&slot_##NAME, #NAME, which))
#define SLOT(NAME) static void *slot_##NAME;

// One precision's routines: T is float or double, p is s or d.
#define PROACTIVE_CBLAS_DEFINE(T, p) \
    SLOT(cblas_##p##dot) SLOT(cblas_##p##axpy) SLOT(cblas_##p##scal) SLOT(cblas_##p##nrm2) \
    SLOT(cblas_##p##gemv) SLOT(cblas_##p##gemm) SLOT(cblas_##p##ger) SLOT(cblas_##p##syr) \
    SLOT(LAPACKE_##p##potrf) SLOT(LAPACKE_##p##potrs) SLOT(LAPACKE_##p##posv) SLOT(LAPACKE_##p##syevd) \
    T proactive_cblas_##p##dot(const blasint n, const T *x, const blasint incx, const T *y, const blasint incy) { \
        return TARGET(0, cblas_##p##dot)(n, x, incx, y, incy); } \
    void proactive_cblas_##p##axpy(const blasint n, const T alpha, const T *x, const blasint incx, T *y, const blasint incy) { \
        TARGET(0, cblas_##p##axpy)(n, alpha, x, incx, y, incy); } \
    void proactive_cblas_##p##scal(const blasint n, const T alpha, T *x, const blasint incx) { \
        TARGET(0, cblas_##p##scal)(n, alpha, x, incx); } \
    T proactive_cblas_##p##nrm2(const blasint n, const T *x, const blasint incx) { \
        return TARGET(0, cblas_##p##nrm2)(n, x, incx); } \
    void proactive_cblas_##p##gemv(const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE trans, const blasint m, \
        const blasint n, const T alpha, const T *a, const blasint lda, const T *x, const blasint incx, const T beta, \
        T *y, const blasint incy) { \
        TARGET(0, cblas_##p##gemv)(order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy); } \
    void proactive_cblas_##p##gemm(const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE transA, \
        const enum CBLAS_TRANSPOSE transB, const blasint m, const blasint n, const blasint k, const T alpha, const T *a, \
        const blasint lda, const T *b, const blasint ldb, const T beta, T *c, const blasint ldc) { \
        TARGET(0, cblas_##p##gemm)(order, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); } \
    void proactive_cblas_##p##ger(const enum CBLAS_ORDER order, const blasint m, const blasint n, const T alpha, \
        const T *x, const blasint incx, const T *y, const blasint incy, T *a, const blasint lda) { \
        TARGET(0, cblas_##p##ger)(order, m, n, alpha, x, incx, y, incy, a, lda); } \
    void proactive_cblas_##p##syr(const enum CBLAS_ORDER order, const enum CBLAS_UPLO uplo, const blasint n, \
        const T alpha, const T *x, const blasint incx, T *a, const blasint lda) { \
        TARGET(0, cblas_##p##syr)(order, uplo, n, alpha, x, incx, a, lda); } \
    lapack_int proactive_LAPACKE_##p##potrf(int layout, char uplo, lapack_int n, T *a, lapack_int lda) { \
        return TARGET(1, LAPACKE_##p##potrf)(layout, uplo, n, a, lda); } \
    lapack_int proactive_LAPACKE_##p##potrs(int layout, char uplo, lapack_int n, lapack_int nrhs, const T *a, \
        lapack_int lda, T *b, lapack_int ldb) { \
        return TARGET(1, LAPACKE_##p##potrs)(layout, uplo, n, nrhs, a, lda, b, ldb); } \
    lapack_int proactive_LAPACKE_##p##posv(int layout, char uplo, lapack_int n, lapack_int nrhs, T *a, lapack_int lda, \
        T *b, lapack_int ldb) { \
        return TARGET(1, LAPACKE_##p##posv)(layout, uplo, n, nrhs, a, lda, b, ldb); } \
    lapack_int proactive_LAPACKE_##p##syevd(int layout, char jobz, char uplo, lapack_int n, T *a, lapack_int lda, T *w) { \
        return TARGET(1, LAPACKE_##p##syevd)(layout, jobz, uplo, n, a, lda, w); }

PROACTIVE_CBLAS_DEFINE(float, s)
PROACTIVE_CBLAS_DEFINE(double, d)

SLOT(openblas_set_num_threads) SLOT(openblas_get_num_threads) SLOT(openblas_get_config) SLOT(openblas_get_corename)
void proactive_openblas_set_num_threads(int n) { TARGET(0, openblas_set_num_threads)(n); }
int proactive_openblas_get_num_threads(void) { return TARGET(0, openblas_get_num_threads)(); }
char *proactive_openblas_get_config(void) { return TARGET(0, openblas_get_config)(); }
char *proactive_openblas_get_corename(void) { return TARGET(0, openblas_get_corename)(); }
