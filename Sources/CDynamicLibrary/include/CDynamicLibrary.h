#ifndef PROACTIVE_CDYNAMICLIBRARY_H
#define PROACTIVE_CDYNAMICLIBRARY_H

/// A shared library opened at first use, and its functions looked up once each.
///
/// `library` holds the handle (zero-initialised static storage); `soname` is what dlopen
/// opens (e.g. "libpq.so.5"), with RTLD_GLOBAL when `global` (a library whose dependents
/// opened later must see it, as LAPACKE's LAPACK sees OpenBLAS; its references to its own
/// symbols then bind within it first, RTLD_DEEPBIND), else RTLD_LOCAL;
/// `packages` names the Debian packages that install it, for the message when it cannot be
/// opened or lacks `name`: the process then ends (abort), since nothing can proceed without it.
/// `slot` caches the function's address (zero-initialised static storage). Safe from any
/// thread: a race opens or looks up twice, harmlessly, and every caller gets the same address.
///
/// ```c
/// static void *libpq, *slot_PQclear;
/// void PQclear(PGresult *res) {
///     ((__typeof__(PQclear) *)dynamic_library_function(&libpq, "libpq.so.5", 0, "libpq-dev", &slot_PQclear, "PQclear"))(res);
/// }
/// ```
void *dynamic_library_function(void **library, const char *soname, int global, const char *packages,
                               void **slot, const char *name);

/// Opens `soname` into `library` as `dynamic_library_function` would, without looking anything up
/// and without ending the process: a library that cannot be opened leaves `library` empty, and the
/// first function asked for reports it then. For opening ahead of use (see `proactive_openblas_open_ahead`).
/// - Returns: 1 when `library` holds the library, else 0.
int dynamic_library_open_quietly(void **library, const char *soname, int global);

#endif
