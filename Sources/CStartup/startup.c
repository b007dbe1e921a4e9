// The `proactive` executable's first step.
//
// OpenBLAS starts its worker threads in its library constructor, sized by OPENBLAS_NUM_THREADS
// (else the number of cores), and each worker spins (sched_yield) waiting for work until a
// timeout of about 2^28 cycles: longer than most commands run. Every command runs BLAS on one
// thread (latency paths, and training parallel over users), so those workers only burn CPU.
// The environment cannot be changed in time from inside the process (glibc resets `environ`
// after an ELF pre-initialiser runs), so the workers are stopped instead, as OpenBLAS itself
// does before a fork (`blas_thread_shutdown_`); with one thread OpenBLAS never starts them again.
// A value the environment gives is left as it is.
#include <stdlib.h>
#include "CStartup.h"

extern int blas_thread_shutdown_(void);
extern void openblas_set_num_threads(int);

int cstartup_quiet_openblas(void) {
    const char *given = getenv("OPENBLAS_NUM_THREADS");
    if (given != NULL && given[0] != '\0') return 0;
    openblas_set_num_threads(1);
    blas_thread_shutdown_();
    return 1;
}
