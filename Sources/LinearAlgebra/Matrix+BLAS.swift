internal import CBLAS

// MARK: - Shape helpers

extension Matrix {
    /// `"A is 3x4"`, or `"A^T is 4x3"` when the operand is used transposed.
    func operandDescription(_ name: String, transposed: Bool = false) -> String {
        transposed ? "\(name)^T is \(columns)x\(rows)" : "\(name) is \(rows)x\(columns)"
    }

    /// The shape of op(self): `(rows, columns)`, swapped when `transposed`.
    func shape(transposed: Bool) -> (rows: Int, columns: Int) {
        transposed ? (columns, rows) : (rows, columns)
    }

    /// `rows` and `columns` as 32-bit BLAS integers.
    func blasShape(_ operation: String) throws(LinearAlgebraError) -> (rows: Int32, columns: Int32) {
        (try blasInt(rows, operation, "rows"), try blasInt(columns, operation, "columns"))
    }

    /// The dimension of a square matrix as a 32-bit BLAS integer.
    ///
    /// - Throws: `.shapeMismatch` if the matrix is not square.
    func squareDimension(_ operation: String) throws(LinearAlgebraError) -> Int32 {
        try LinearAlgebraError.requireShape(
            rows == columns, operation, "\(operandDescription("A")) but must be square"
        )
        return try blasInt(rows, operation, "n")
    }
}

// MARK: - Level 2: matrix-vector

extension Matrix {
    /// y = alpha * op(A) x + beta * y, where A is `self` and op(A) is A or Aᵀ (`sgemv`/`dgemv`).
    ///
    /// With `beta == 0` the previous contents of `y` are ignored (even NaN).
    ///
    /// - Parameters:
    ///   - x: The input vector; `columns` elements (`rows` if `transpose`).
    ///   - alpha: The multiplier of op(A) x.
    ///   - beta: The multiplier of the previous `y`.
    ///   - y: The output; `rows` elements (`columns` if `transpose`).
    ///   - transpose: Use Aᵀ instead of A.
    /// - Throws: `LinearAlgebraError.shapeMismatch` if `x` or `y` has the wrong
    ///   length; `y` is then unchanged.
    /// - Complexity: O(rows * columns).
    package func gemv(
        _ x: [Scalar], alpha: Scalar = 1, beta: Scalar = 0, into y: inout [Scalar], transpose: Bool = false
    ) throws {
        let op = shape(transposed: transpose)
        let a = operandDescription("A", transposed: transpose)
        try LinearAlgebraError.requireShape(x.count == op.columns, "gemv", "\(a) but x has \(x.count) elements")
        try LinearAlgebraError.requireShape(y.count == op.rows, "gemv", "\(a) but y has \(y.count) elements")
        let (m, n) = try blasShape("gemv")
        storage.withUnsafeBufferPointer { aBuffer in
            x.withUnsafeBufferPointer { xBuffer in
                y.withUnsafeMutableBufferPointer { yBuffer in
                    Scalar.blasRoutines.gemv(
                        rows: m, columns: n, aBuffer.baseAddress, transpose: transpose,
                        xBuffer.baseAddress, yBuffer.baseAddress, alpha: alpha, beta: beta
                    )
                }
            }
        }
    }

    /// The product op(A) x, where A is `self`.
    ///
    /// - Parameters:
    ///   - x: The vector; `columns` elements (`rows` if `transpose`).
    ///   - transpose: Use Aᵀ instead of A.
    /// - Returns: A vector of `rows` elements (`columns` if `transpose`).
    /// - Throws: `LinearAlgebraError.shapeMismatch` if `x` has the wrong length.
    /// - Complexity: O(rows * columns).
    package func multiplied(by x: [Scalar], transpose: Bool = false) throws -> [Scalar] {
        var y = [Scalar](repeating: 0, count: shape(transposed: transpose).rows)
        try gemv(x, into: &y, transpose: transpose)
        return y
    }

    /// A += alpha * x yᵀ, the rank-one update (`sger`/`dger`).
    ///
    /// - Parameters:
    ///   - x: `rows` elements.
    ///   - y: `columns` elements.
    ///   - alpha: The multiplier of x yᵀ.
    /// - Throws: `LinearAlgebraError.shapeMismatch` if `x` or `y` has the wrong
    ///   length; the matrix is then unchanged.
    /// - Complexity: O(rows * columns).
    package mutating func ger(_ x: [Scalar], _ y: [Scalar], alpha: Scalar = 1) throws {
        let a = operandDescription("A")
        try LinearAlgebraError.requireShape(x.count == rows, "ger", "\(a) but x has \(x.count) elements")
        try LinearAlgebraError.requireShape(y.count == columns, "ger", "\(a) but y has \(y.count) elements")
        let (m, n) = try blasShape("ger")
        guard m > 0, n > 0 else { return }
        storage.withUnsafeMutableBufferPointer { aBuffer in
            Scalar.blasRoutines.blasGer(
                CblasRowMajor, m, n, alpha, x, 1, y, 1, aBuffer.baseAddress, leadingDimension(n)
            )
        }
    }

    /// A += alpha * x xᵀ for a symmetric A, keeping the full matrix (`ssyr`/`dsyr`).
    ///
    /// BLAS `syr` updates one triangle; this updates the upper triangle and
    /// then copies it onto the lower one, so afterwards the matrix is exactly
    /// symmetric. The input's strictly lower triangle is therefore not read:
    /// A is taken to be the symmetric matrix given by its upper triangle.
    ///
    /// - Parameters:
    ///   - x: `rows` elements.
    ///   - alpha: The multiplier of x xᵀ.
    /// - Throws: `LinearAlgebraError.shapeMismatch` if the matrix is not square
    ///   or `x` has the wrong length; the matrix is then unchanged.
    /// - Complexity: O(n²).
    package mutating func syr(_ x: [Scalar], alpha: Scalar = 1) throws {
        let n = try squareDimension("syr")
        try LinearAlgebraError.requireShape(
            x.count == rows, "syr", "\(operandDescription("A")) but x has \(x.count) elements"
        )
        guard n > 0 else { return }
        let size = rows
        storage.withUnsafeMutableBufferPointer { aBuffer in
            Scalar.blasRoutines.blasSyr(CblasRowMajor, CblasUpper, n, alpha, x, 1, aBuffer.baseAddress, n)
            for i in 1..<size {
                for j in 0..<i {
                    aBuffer[i * size + j] = aBuffer[j * size + i]
                }
            }
        }
    }

    /// Row `i` += alpha * x, in place (`saxpy`/`daxpy` on the row, no copy).
    ///
    /// - Parameters:
    ///   - i: The row index, `0 ..< rows`.
    ///   - x: `columns` elements.
    ///   - alpha: The multiplier of `x`.
    /// - Throws: `LinearAlgebraError.invalidArgument` if `i` is out of range,
    ///   `LinearAlgebraError.shapeMismatch` if `x` has the wrong length.
    /// - Complexity: O(columns).
    package mutating func addRow(_ i: Int, _ x: [Scalar], alpha: Scalar = 1) throws {
        guard i >= 0, i < rows else {
            throw LinearAlgebraError.invalidArgument(
                operation: "addRow", detail: "row \(i) is out of range 0..<\(rows) for a \(rows)x\(columns) matrix"
            )
        }
        try LinearAlgebraError.requireShape(
            x.count == columns, "addRow", "\(operandDescription("A")) but x has \(x.count) elements"
        )
        let offset = i * columns
        storage.withUnsafeMutableBufferPointer { aBuffer in
            x.withUnsafeBufferPointer { xBuffer in
                Scalar.blasRoutines.axpy(
                    count: xBuffer.count, alpha: alpha, xBuffer.baseAddress, aBuffer.baseAddress.map { $0 + offset }
                )
            }
        }
    }
}

// MARK: - Level 3: matrix-matrix

extension Matrix {
    /// C = alpha * op(A) op(B) + beta * C (`sgemm`/`dgemm`).
    ///
    /// op(X) is X, or Xᵀ when its transpose flag is set. With `beta == 0` the
    /// previous contents of `c` are ignored (even NaN).
    ///
    /// - Parameters:
    ///   - a: The left operand; op(A) is m x k.
    ///   - transposeA: Use Aᵀ.
    ///   - b: The right operand; op(B) must be k x n.
    ///   - transposeB: Use Bᵀ.
    ///   - alpha: The multiplier of the product.
    ///   - beta: The multiplier of the previous `c`.
    ///   - c: The m x n output.
    /// - Throws: `LinearAlgebraError.shapeMismatch` if the inner dimensions
    ///   differ or `c` is not m x n; `c` is then unchanged.
    /// - Complexity: O(m * n * k).
    package static func gemm(
        _ a: Matrix, transposeA: Bool = false, _ b: Matrix, transposeB: Bool = false,
        alpha: Scalar = 1, beta: Scalar = 0, into c: inout Matrix
    ) throws {
        let opA = a.shape(transposed: transposeA)
        let opB = b.shape(transposed: transposeB)
        let shapes = "\(a.operandDescription("A", transposed: transposeA)) but \(b.operandDescription("B", transposed: transposeB))"
        try LinearAlgebraError.requireShape(opA.columns == opB.rows, "gemm", shapes)
        try LinearAlgebraError.requireShape(
            c.rows == opA.rows && c.columns == opB.columns, "gemm",
            "op(A) op(B) is \(opA.rows)x\(opB.columns) but \(c.operandDescription("C"))"
        )
        let m = try blasInt(opA.rows, "gemm", "m")
        let n = try blasInt(opB.columns, "gemm", "n")
        let k = try blasInt(opA.columns, "gemm", "k")
        a.storage.withUnsafeBufferPointer { aBuffer in
            b.storage.withUnsafeBufferPointer { bBuffer in
                c.storage.withUnsafeMutableBufferPointer { cBuffer in
                    Scalar.blasRoutines.gemm(
                        m: m, n: n, k: k, aBuffer.baseAddress, transposeA: transposeA,
                        bBuffer.baseAddress, transposeB: transposeB, cBuffer.baseAddress, alpha: alpha, beta: beta
                    )
                }
            }
        }
    }

    /// The product op(self) op(b).
    ///
    /// - Parameters:
    ///   - b: The right operand.
    ///   - transposeSelf: Use selfᵀ.
    ///   - transposeOther: Use bᵀ.
    /// - Returns: An m x n matrix, where op(self) is m x k and op(b) is k x n.
    /// - Throws: `LinearAlgebraError.shapeMismatch` if the inner dimensions differ.
    /// - Complexity: O(m * n * k).
    package func multiplied(by b: Matrix, transposeSelf: Bool = false, transposeOther: Bool = false) throws -> Matrix {
        var c = Matrix(
            rows: shape(transposed: transposeSelf).rows, columns: b.shape(transposed: transposeOther).columns
        )
        try Matrix.gemm(self, transposeA: transposeSelf, b, transposeB: transposeOther, into: &c)
        return c
    }
}
