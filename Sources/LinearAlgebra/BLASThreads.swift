internal import CBLAS

// MARK: - BLAS

/// The OpenBLAS library behind this module: threading and build information.
///
/// The state lives inside OpenBLAS (process-wide); these are thin wrappers.
/// OpenBLAS is opened at the first call into it (any routine, or one of
/// these); it starts `OPENBLAS_NUM_THREADS` threads then (default: one per
/// core), so a program that wants one thread and no idle workers sets that
/// variable before its first computation, as `proactive` does:
///
/// ```swift
/// setenv("OPENBLAS_NUM_THREADS", "1", 0)   // before anything computes; keeps a value already set
/// ```
public enum BLAS {
    // MARK: Threads

    /// The number of threads OpenBLAS uses for level-2/3 routines
    /// (`openblas_get_num_threads`).
    public static var threadCount: Int {
        Int(proactive_openblas_get_num_threads())
    }

    /// Sets the number of threads OpenBLAS uses (`openblas_set_num_threads`).
    ///
    /// Values below 1 are treated as 1; OpenBLAS may cap large values at the
    /// number of threads it was built for. The setting is process-wide; do not
    /// change it while another thread is inside a BLAS call (OpenBLAS does not
    /// synchronize this).
    ///
    /// - Parameter n: The requested thread count.
    public static func setThreadCount(_ n: Int) {
        proactive_openblas_set_num_threads(Int32(clamping: max(1, n)))
    }

    /// Starts opening OpenBLAS on a thread of its own and returns at once, for a caller that will read
    /// (a store, a saved model) before it computes: the dynamic linker's work on the library (its
    /// relocations and constructor) then overlaps the reading instead of
    /// following it. Does nothing when OpenBLAS is open or being opened. The library reads
    /// `OPENBLAS_NUM_THREADS` as it opens, so set that first, as for any first call. A library that
    /// cannot be opened is reported by the first call into it, as without this.
    ///
    /// ```swift
    /// BLAS.openAhead()
    /// let saved = try store.load(user: "ana")   // meanwhile OpenBLAS opens on the other core
    /// ```
    public static func openAhead() {
        proactive_openblas_open_ahead()
    }

    // MARK: Build information

    /// The CPU kernel OpenBLAS selected, e.g. `"Haswell"` (`openblas_get_corename`).
    public static var coreType: String {
        proactive_openblas_get_corename().map { String(cString: $0) } ?? ""
    }

    /// The OpenBLAS build configuration string (`openblas_get_config`), e.g.
    /// `"OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64"`.
    public static var configuration: String {
        proactive_openblas_get_config().map { String(cString: $0) } ?? ""
    }
}
