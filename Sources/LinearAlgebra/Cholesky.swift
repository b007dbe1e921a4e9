#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

// MARK: - Cholesky

/// The Cholesky factorization A = L Lᵀ of a symmetric positive definite
/// matrix (`spotrf`/`dpotrf`, lower triangle, row-major).
///
/// Only the lower triangle of A is read. Reuse one factorization to solve
/// for many right-hand sides.
package struct Cholesky<Scalar: BLASScalar>: Sendable {
    /// The lower-triangular factor L; its strictly upper triangle is zero.
    package let lower: Matrix<Scalar>

    /// log det(A) = 2 Σ log Lᵢᵢ; 0 for a 0x0 matrix.
    package let logDeterminant: Scalar

    /// The dimension n of A.
    package var dimension: Int { lower.rows }

    // MARK: Factorization

    /// Factors a symmetric positive definite matrix.
    ///
    /// - Parameter a: An n x n matrix; only its lower triangle is read.
    /// - Throws: `LinearAlgebraError.shapeMismatch` if `a` is not square;
    ///   `LinearAlgebraError.lapack(routine: "dpotrf"` (`"spotrf"` for `Float`)`, info:)`
    ///   if it is not positive definite (`info > 0` is the order of the first
    ///   leading minor that is not) or contains NaN (`info < 0`).
    /// - Complexity: O(n³).
    package init(_ a: Matrix<Scalar>) throws {
        let n = try a.squareDimension("potrf")
        let routines = Scalar.blasRoutines
        var factor = a.storage
        if n > 0 {
            let info = routines.lapackPotrf(LAPACKFlag.rowMajor, LAPACKFlag.lower, n, &factor, n)
            try LinearAlgebraError.requireSuccess(info, routine: routines.routineName("potrf"))
        }
        let size = a.rows
        var logDeterminant = 0.0  // accumulated in Double, also for Float
        for i in 0..<size {
            logDeterminant += 2 * log(Double(factor[i * size + i]))
            for j in (i + 1)..<size {
                factor[i * size + j] = 0  // potrf leaves A's upper triangle there
            }
        }
        self.lower = Matrix(uncheckedRows: size, columns: size, storage: factor)
        self.logDeterminant = Scalar(logDeterminant)
    }

    // MARK: Solving

    /// Solves A x = b (`spotrs`/`dpotrs`).
    ///
    /// - Parameter b: The right-hand side; `dimension` elements.
    /// - Returns: x.
    /// - Throws: `LinearAlgebraError.shapeMismatch` if `b` has the wrong length;
    ///   `LinearAlgebraError.lapack(routine: "dpotrs"/"spotrs", info:)` if LAPACK
    ///   rejects an argument (e.g. NaN in `b`).
    /// - Complexity: O(n²).
    package func solve(_ b: [Scalar]) throws -> [Scalar] {
        try LinearAlgebraError.requireShape(
            b.count == dimension, "potrs", "\(lower.operandDescription("A")) but b has \(b.count) elements"
        )
        var x = b
        try solveInPlace(&x, rightHandSides: 1)
        return x
    }

    /// Solves A X = B for several right-hand sides at once (`spotrs`/`dpotrs`).
    ///
    /// - Parameter b: The right-hand sides as columns; `dimension` rows.
    /// - Returns: X, the same shape as `b`.
    /// - Throws: `LinearAlgebraError.shapeMismatch` if `b` has the wrong number
    ///   of rows; `LinearAlgebraError.lapack(routine: "dpotrs"/"spotrs", info:)`
    ///   if LAPACK rejects an argument.
    /// - Complexity: O(n² * b.columns).
    package func solve(_ b: Matrix<Scalar>) throws -> Matrix<Scalar> {
        try LinearAlgebraError.requireShape(
            b.rows == dimension, "potrs", "\(lower.operandDescription("A")) but \(b.operandDescription("B"))"
        )
        var x = b
        try solveInPlace(&x.storage, rightHandSides: b.columns)
        return x
    }

    /// Overwrites the row-major `dimension` x `rightHandSides` matrix in `b` with A⁻¹ b.
    private func solveInPlace(_ b: inout [Scalar], rightHandSides: Int) throws {
        let n = try blasInt(dimension, "potrs", "n")
        let nrhs = try blasInt(rightHandSides, "potrs", "nrhs")
        guard n > 0, nrhs > 0 else { return }
        let routines = Scalar.blasRoutines
        let info = lower.storage.withUnsafeBufferPointer { l in
            routines.lapackPotrs(LAPACKFlag.rowMajor, LAPACKFlag.lower, n, nrhs, l.baseAddress, n, &b, nrhs)
        }
        try LinearAlgebraError.requireSuccess(info, routine: routines.routineName("potrs"))
    }
}

// MARK: - One-shot solve

/// Solves A x = b for a symmetric positive definite A in one call (`sposv`/`dposv`).
///
/// Use `Cholesky` instead when solving with the same A more than once.
///
/// - Parameters:
///   - a: An n x n matrix; only its lower triangle is read.
///   - b: The right-hand side; n elements.
/// - Returns: x.
/// - Throws: `LinearAlgebraError.shapeMismatch` if `a` is not square or `b`
///   has the wrong length; `LinearAlgebraError.lapack(routine: "dposv"/"sposv", info:)`
///   if `a` is not positive definite (`info > 0`) or an argument is rejected.
/// - Complexity: O(n³).
package func choleskySolve<S: BLASScalar>(_ a: Matrix<S>, _ b: [S]) throws -> [S] {
    let n = try a.squareDimension("posv")
    try LinearAlgebraError.requireShape(
        b.count == a.rows, "posv", "\(a.operandDescription("A")) but b has \(b.count) elements"
    )
    guard n > 0 else { return b }
    let routines = S.blasRoutines
    var factor = a.storage
    var x = b
    let info = routines.lapackPosv(LAPACKFlag.rowMajor, LAPACKFlag.lower, n, 1, &factor, n, &x, 1)
    try LinearAlgebraError.requireSuccess(info, routine: routines.routineName("posv"))
    return x
}
