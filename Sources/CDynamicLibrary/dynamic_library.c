// Shared libraries opened at first use (include/CDynamicLibrary.h).
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "CDynamicLibrary.h"

static void *open_handle(const char *soname, int global) {
    // A global library binds its references to itself within itself (RTLD_DEEPBIND) instead of
    // looking each up through every library of the process first (docs/PERFORMANCE.md has what
    // that costs OpenBLAS). Counted: opening twice is harmless.
    return dlopen(soname, RTLD_LAZY | (global ? RTLD_GLOBAL | RTLD_DEEPBIND : RTLD_LOCAL));
}

int dynamic_library_open_quietly(void **library, const char *soname, int global) {
    if (__atomic_load_n(library, __ATOMIC_ACQUIRE) != NULL) return 1;
    void *handle = open_handle(soname, global);
    if (handle == NULL) return 0;
    __atomic_store_n(library, handle, __ATOMIC_RELEASE);
    return 1;
}

static void *open_library(void **library, const char *soname, int global, const char *packages) {
    void *handle = __atomic_load_n(library, __ATOMIC_ACQUIRE);
    if (handle != NULL) return handle;
    handle = open_handle(soname, global);
    if (handle == NULL) {
        const char *reason = dlerror();
        fprintf(stderr, "proactive: cannot load %s (%s); install %s\n", soname, reason ? reason : "not found", packages);
        abort();
    }
    __atomic_store_n(library, handle, __ATOMIC_RELEASE);
    return handle;
}

void *dynamic_library_function(void **library, const char *soname, int global, const char *packages,
                               void **slot, const char *name) {
    void *function = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (function != NULL) return function;
    function = dlsym(open_library(library, soname, global, packages), name);
    if (function == NULL) {
        fprintf(stderr, "proactive: %s has no %s; install %s\n", soname, name, packages);
        abort();
    }
    __atomic_store_n(slot, function, __ATOMIC_RELEASE);
    return function;
}
