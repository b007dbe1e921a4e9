#ifndef PROACTIVE_CBLAS_H
#define PROACTIVE_CBLAS_H

// OpenBLAS's CBLAS and LAPACKE, opened at first use (see openblas.c).
//
// Each `proactive_NAME` has exactly the type of the library's `NAME` (declared with
// `__typeof__`, so a prototype that drifts is a compile error) and forwards to it. The first
// call of any of them opens libopenblas.so.0 (and, for LAPACKE, liblapacke.so.3): OpenBLAS
// sizes its worker threads in its library constructor from OPENBLAS_NUM_THREADS, so a
// program that sets that variable before its first BLAS call gets that many threads from
// the start, and a program that never computes never loads the library.
// A library that cannot be opened, or lacks a routine, ends the process with a message
// naming it and the Debian packages to install (libopenblas-dev, liblapacke-dev).

#include <cblas.h>
#include <lapacke.h>

#define PROACTIVE_CBLAS_DECLARE(p) \
    extern __typeof__(cblas_##p##dot) proactive_cblas_##p##dot; \
    extern __typeof__(cblas_##p##axpy) proactive_cblas_##p##axpy; \
    extern __typeof__(cblas_##p##scal) proactive_cblas_##p##scal; \
    extern __typeof__(cblas_##p##nrm2) proactive_cblas_##p##nrm2; \
    extern __typeof__(cblas_##p##gemv) proactive_cblas_##p##gemv; \
    extern __typeof__(cblas_##p##gemm) proactive_cblas_##p##gemm; \
    extern __typeof__(cblas_##p##ger) proactive_cblas_##p##ger; \
    extern __typeof__(cblas_##p##syr) proactive_cblas_##p##syr; \
    extern __typeof__(LAPACKE_##p##potrf) proactive_LAPACKE_##p##potrf; \
    extern __typeof__(LAPACKE_##p##potrs) proactive_LAPACKE_##p##potrs; \
    extern __typeof__(LAPACKE_##p##posv) proactive_LAPACKE_##p##posv; \
    extern __typeof__(LAPACKE_##p##syevd) proactive_LAPACKE_##p##syevd;

PROACTIVE_CBLAS_DECLARE(s)
PROACTIVE_CBLAS_DECLARE(d)

extern __typeof__(openblas_set_num_threads) proactive_openblas_set_num_threads;
extern __typeof__(openblas_get_num_threads) proactive_openblas_get_num_threads;
extern __typeof__(openblas_get_config) proactive_openblas_get_config;
extern __typeof__(openblas_get_corename) proactive_openblas_get_corename;

// Starts opening libopenblas.so.0 on a thread of its own and returns at once (at most once a
// process; nothing when it is open already): a caller about to read, then compute, overlaps the
// dynamic linker's work on OpenBLAS (its relocations, its constructor) with the reading. A
// library that cannot be opened is reported by the first call into it, as without this.
void proactive_openblas_open_ahead(void);

#endif
