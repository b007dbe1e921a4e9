// Forwarders to OpenBLAS's CBLAS and LAPACKE, opened at first use (include/CBLAS.h says why).
#include <pthread.h>
#include "CBLAS.h"
#include "CDynamicLibrary.h"

static void *openblas, *lapacke;

// OpenBLAS is opened RTLD_GLOBAL: LAPACKE's LAPACK, opened after it, resolves its BLAS there.
#define TARGET(which, NAME) ((__typeof__(NAME) *)dynamic_library_function( \
    (which) ? &lapacke : &openblas, (which) ? "liblapacke.so.3" : "libopenblas.so.0", !(which), \
    "libopenblas-dev and liblapacke-dev", &slot_##NAME, #NAME))
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

static void *open_openblas(void *unused) {
    (void)unused;
    dynamic_library_open_quietly(&openblas, "libopenblas.so.0", 1);
    return NULL;
}

void proactive_openblas_open_ahead(void) {
    static int started;
    if (__atomic_load_n(&openblas, __ATOMIC_ACQUIRE) != NULL || __atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL)) return;
    pthread_attr_t attributes;
    pthread_t thread;
    if (pthread_attr_init(&attributes) != 0) return;
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    // No thread, no harm: the first call into OpenBLAS opens it, as without this.
    pthread_create(&thread, &attributes, open_openblas, NULL);
    pthread_attr_destroy(&attributes);
}
