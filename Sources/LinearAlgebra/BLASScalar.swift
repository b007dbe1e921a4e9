internal import CBLAS

// MARK: - BLASScalar

/// A real floating-point type that BLAS and LAPACK can operate on.
///
/// `Float` dispatches to the single-precision routines (`s*`) and `Double`
/// to the double-precision ones (`d*`). The requirement is an opaque table of
/// routines that only this module can build, so no other type can conform.
package protocol BLASScalar: BinaryFloatingPoint, Sendable {
    /// The BLAS/LAPACK routines for this precision. Implementation detail of
    /// the `LinearAlgebra` module; it has no public members.
    static var blasRoutines: BLASRoutineTable<Self> { get }
}

extension Float: BLASScalar {
    /// The single-precision (`s*`) routines.
    package static let blasRoutines = BLASRoutineTable<Float>(
        prefix: "s",
        blasDot: proactive_cblas_sdot, blasAxpy: proactive_cblas_saxpy, blasScal: proactive_cblas_sscal, blasNrm2: proactive_cblas_snrm2,
        blasGemv: proactive_cblas_sgemv, blasGemm: proactive_cblas_sgemm, blasGer: proactive_cblas_sger, blasSyr: proactive_cblas_ssyr,
        lapackPotrf: proactive_LAPACKE_spotrf, lapackPotrs: proactive_LAPACKE_spotrs, lapackPosv: proactive_LAPACKE_sposv, lapackSyevd: proactive_LAPACKE_ssyevd
    )
}

extension Double: BLASScalar {
    /// The double-precision (`d*`) routines.
    package static let blasRoutines = BLASRoutineTable<Double>(
        prefix: "d",
        blasDot: proactive_cblas_ddot, blasAxpy: proactive_cblas_daxpy, blasScal: proactive_cblas_dscal, blasNrm2: proactive_cblas_dnrm2,
        blasGemv: proactive_cblas_dgemv, blasGemm: proactive_cblas_dgemm, blasGer: proactive_cblas_dger, blasSyr: proactive_cblas_dsyr,
        lapackPotrf: proactive_LAPACKE_dpotrf, lapackPotrs: proactive_LAPACKE_dpotrs, lapackPosv: proactive_LAPACKE_dposv, lapackSyevd: proactive_LAPACKE_dsyevd
    )
}

// MARK: - Routine table

/// The CBLAS and LAPACKE entry points for one precision.
///
/// The stored function types mirror the C prototypes exactly, so a mismatch in
/// integer width (`blasint`, `lapack_int`) is a compile error here rather than
/// a silent truncation at run time. Its initializer is internal: only `Float`
/// and `Double` have tables.
package struct BLASRoutineTable<Scalar>: Sendable {
    typealias Pointer = UnsafePointer<Scalar>?
    typealias MutablePointer = UnsafeMutablePointer<Scalar>?

    /// `"s"` or `"d"`: the letter LAPACK routine names start with.
    let prefix: String

    // MARK: BLAS level 1
    let blasDot: @Sendable (Int32, Pointer, Int32, Pointer, Int32) -> Scalar
    let blasAxpy: @Sendable (Int32, Scalar, Pointer, Int32, MutablePointer, Int32) -> Void
    let blasScal: @Sendable (Int32, Scalar, MutablePointer, Int32) -> Void
    let blasNrm2: @Sendable (Int32, Pointer, Int32) -> Scalar

    // MARK: BLAS level 2 and 3
    let blasGemv: @Sendable (
        CBLAS_ORDER, CBLAS_TRANSPOSE, Int32, Int32, Scalar, Pointer, Int32,
        Pointer, Int32, Scalar, MutablePointer, Int32
    ) -> Void
    let blasGemm: @Sendable (
        CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, Int32, Int32, Int32, Scalar,
        Pointer, Int32, Pointer, Int32, Scalar, MutablePointer, Int32
    ) -> Void
    let blasGer: @Sendable (CBLAS_ORDER, Int32, Int32, Scalar, Pointer, Int32, Pointer, Int32, MutablePointer, Int32) -> Void
    let blasSyr: @Sendable (CBLAS_ORDER, CBLAS_UPLO, Int32, Scalar, Pointer, Int32, MutablePointer, Int32) -> Void

    // MARK: LAPACK (arguments: layout, [jobz,] uplo, n, [nrhs,] a, lda, ...; result: info)
    let lapackPotrf: @Sendable (Int32, CChar, Int32, MutablePointer, Int32) -> Int32
    let lapackPotrs: @Sendable (Int32, CChar, Int32, Int32, Pointer, Int32, MutablePointer, Int32) -> Int32
    let lapackPosv: @Sendable (Int32, CChar, Int32, Int32, MutablePointer, Int32, MutablePointer, Int32) -> Int32
    let lapackSyevd: @Sendable (Int32, CChar, CChar, Int32, MutablePointer, Int32, MutablePointer) -> Int32

    /// The full LAPACK routine name for this precision, e.g. `"dpotrf"`.
    func routineName(_ base: String) -> String { prefix + base }
}

// MARK: - C argument helpers

extension Bool {
    /// The CBLAS transpose flag for "apply the transpose of the operand".
    var cblasTranspose: CBLAS_TRANSPOSE { self ? CblasTrans : CblasNoTrans }
}

/// LAPACK character arguments (`uplo`, `jobz`).
enum LAPACKFlag {
    static let lower = CChar(UInt8(ascii: "L"))
    static let vectors = CChar(UInt8(ascii: "V"))
    static let rowMajor = Int32(LAPACK_ROW_MAJOR)
}

/// Converts a dimension to the 32-bit integer BLAS and LAPACK take.
///
/// - Parameters:
///   - value: A non-negative dimension or count.
///   - operation: The operation named in the error.
///   - name: What `value` is, for the error message.
/// - Throws: `LinearAlgebraError.invalidArgument` if `value` does not fit in 32 bits.
func blasInt(_ value: Int, _ operation: String, _ name: String) throws(LinearAlgebraError) -> Int32 {
    guard let converted = Int32(exactly: value) else {
        throw .invalidArgument(
            operation: operation,
            detail: "\(name) = \(value) exceeds the 32-bit BLAS/LAPACK integer limit \(Int32.max)"
        )
    }
    return converted
}

/// A leading dimension for a row-major matrix with `columns` columns; BLAS
/// rejects a leading dimension of 0 even when the matrix is empty.
func leadingDimension(_ columns: Int32) -> Int32 { max(1, columns) }
