// MARK: - BLAS level 1 on arrays
//
// Any length works: arrays longer than the 32-bit BLAS limit are processed in
// chunks.

/// The dot product Σ x[i] * y[i] (`sdot`/`ddot`).
///
/// - Parameters:
///   - x: The first vector.
///   - y: The second vector; must have as many elements as `x`.
/// - Returns: The dot product; 0 for empty vectors.
/// - Throws: `LinearAlgebraError.shapeMismatch` if the lengths differ.
/// - Complexity: O(n).
package func dot<S: BLASScalar>(_ x: [S], _ y: [S]) throws -> S {
    try LinearAlgebraError.requireShape(
        x.count == y.count, "dot", "x has \(x.count) elements but y has \(y.count)"
    )
    return x.withUnsafeBufferPointer { xBuffer in
        y.withUnsafeBufferPointer { yBuffer in
            S.blasRoutines.dot(count: x.count, xBuffer.baseAddress, yBuffer.baseAddress)
        }
    }
}

/// y += alpha * x (`saxpy`/`daxpy`).
///
/// - Parameters:
///   - alpha: The multiplier of `x`.
///   - x: The vector added.
///   - y: The vector updated in place; must have as many elements as `x`.
/// - Throws: `LinearAlgebraError.shapeMismatch` if the lengths differ; `y` is then unchanged.
/// - Complexity: O(n).
package func axpy<S: BLASScalar>(_ alpha: S, _ x: [S], _ y: inout [S]) throws {
    try LinearAlgebraError.requireShape(
        x.count == y.count, "axpy", "x has \(x.count) elements but y has \(y.count)"
    )
    x.withUnsafeBufferPointer { xBuffer in
        y.withUnsafeMutableBufferPointer { yBuffer in
            S.blasRoutines.axpy(count: xBuffer.count, alpha: alpha, xBuffer.baseAddress, yBuffer.baseAddress)
        }
    }
}

/// x *= alpha (`sscal`/`dscal`).
///
/// - Parameters:
///   - alpha: The multiplier.
///   - x: The vector scaled in place.
/// - Complexity: O(n).
package func scal<S: BLASScalar>(_ alpha: S, _ x: inout [S]) {
    x.withUnsafeMutableBufferPointer { buffer in
        S.blasRoutines.scal(count: buffer.count, alpha: alpha, buffer.baseAddress)
    }
}

/// The Euclidean norm √(Σ x[i]²), computed without undue overflow (`snrm2`/`dnrm2`).
///
/// - Parameter x: The vector.
/// - Returns: The norm; 0 for an empty vector.
/// - Complexity: O(n).
package func nrm2<S: BLASScalar>(_ x: [S]) -> S {
    x.withUnsafeBufferPointer { buffer in
        S.blasRoutines.nrm2(count: buffer.count, buffer.baseAddress)
    }
}
