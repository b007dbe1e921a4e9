// MARK: - SymmetricEigen

/// The eigendecomposition A = V diag(values) Vᵀ of a real symmetric matrix
/// (`ssyevd`/`dsyevd`, divide and conquer, row-major).
///
/// Only the lower triangle of A is read.
package struct SymmetricEigen<Scalar: BLASScalar>: Sendable {
    /// The eigenvalues in ascending order.
    package let values: [Scalar]

    /// The orthonormal eigenvectors: column j is the eigenvector for `values[j]`.
    /// Each vector's sign is whatever LAPACK returns.
    package let vectors: Matrix<Scalar>

    // MARK: Decomposition

    /// Computes all eigenvalues and eigenvectors.
    ///
    /// - Parameter a: An n x n symmetric matrix; only its lower triangle is read.
    /// - Throws: `LinearAlgebraError.shapeMismatch` if `a` is not square;
    ///   `LinearAlgebraError.lapack(routine: "dsyevd"/"ssyevd", info:)` if the
    ///   algorithm does not converge (`info > 0`) or an argument is rejected,
    ///   e.g. NaN in `a` (`info < 0`).
    /// - Complexity: O(n³).
    package init(_ a: Matrix<Scalar>) throws {
        let n = try a.squareDimension("syevd")
        let routines = Scalar.blasRoutines
        var vectors = a.storage
        var values = [Scalar](repeating: 0, count: a.rows)
        if n > 0 {
            let info = routines.lapackSyevd(
                LAPACKFlag.rowMajor, LAPACKFlag.vectors, LAPACKFlag.lower, n, &vectors, n, &values
            )
            try LinearAlgebraError.requireSuccess(info, routine: routines.routineName("syevd"))
        }
        self.values = values
        self.vectors = Matrix(uncheckedRows: a.rows, columns: a.rows, storage: vectors)
    }
}
