#ifndef CSTARTUP_H
#define CSTARTUP_H

/// Stops OpenBLAS's idle worker threads and keeps BLAS on one thread, unless the environment sets
/// OPENBLAS_NUM_THREADS (then nothing changes). Returns 1 when it stopped them, 0 otherwise.
/// Call it first thing in `main`, before any BLAS call.
int cstartup_quiet_openblas(void);

#endif
