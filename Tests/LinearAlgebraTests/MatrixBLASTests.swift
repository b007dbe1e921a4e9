import LinearAlgebra
import Testing

@Suite("Matrix BLAS level 2 and 3")
struct MatrixBLASTests {
    // MARK: gemv

    private func gemvCases<S: BLASScalar>(_: S.Type) throws {
        let a = try Matrix<S>([[1, 2, 3], [4, 5, 6]])

        #expect(try a.multiplied(by: [1, 0, -1]) == [-2, -2])
        #expect(try a.multiplied(by: [1, 2], transpose: true) == [9, 12, 15])

        var y: [S] = [1, 1]
        try a.gemv([1, 0, -1], alpha: 2, beta: 3, into: &y)
        #expect(y == [-1, -1])  // 2 * [-2, -2] + 3 * [1, 1]

        var yT: [S] = [2, 4, 6]
        try a.gemv([1, 2], alpha: -1, beta: 0.5, into: &yT, transpose: true)
        #expect(yT == [-8, -10, -12])  // -[9, 12, 15] + [1, 2, 3]

        var ignored: [S] = [.nan, .nan]
        try a.gemv([1, 1, 1], into: &ignored)  // beta = 0: old y is not read
        #expect(ignored == [6, 15])

        // Empty inner dimension: y = beta * y.
        var scaled: [S] = [1, 2]
        try Matrix<S>(rows: 2, columns: 0).gemv([], beta: 2, into: &scaled)
        #expect(scaled == [2, 4])
    }

    @Test func gemvKnownAnswers() throws {
        try gemvCases(Float.self)
        try gemvCases(Double.self)
    }

    @Test func gemvShapeMismatch() throws {
        let a = try Matrix<Double>([[1, 2, 3], [4, 5, 6]])
        #expect(throws: LinearAlgebraError.shapeMismatch(operation: "gemv", detail: "A is 2x3 but x has 2 elements")) {
            try a.multiplied(by: [1, 2])
        }
        #expect(throws: LinearAlgebraError.shapeMismatch(operation: "gemv", detail: "A^T is 3x2 but x has 3 elements")) {
            try a.multiplied(by: [1, 2, 3], transpose: true)
        }
        var y: [Double] = [7, 7, 7]
        #expect(throws: LinearAlgebraError.shapeMismatch(operation: "gemv", detail: "A is 2x3 but y has 3 elements")) {
            try a.gemv([1, 2, 3], into: &y)
        }
        #expect(y == [7, 7, 7])
    }

    // MARK: gemm

    private func gemmCases<S: BLASScalar>(_: S.Type) throws {
        let a = try Matrix<S>([[1, 2], [3, 4], [5, 6]])  // 3x2
        let b = try Matrix<S>([[7, 8, 9], [10, 11, 12]])  // 2x3
        let d = try Matrix<S>([[1, 0], [0, 1], [1, 1]])  // 3x2

        // A B
        #expect(try a.multiplied(by: b) == (try Matrix([[27, 30, 33], [61, 68, 75], [95, 106, 117]])))
        // Aᵀ D
        #expect(try a.multiplied(by: d, transposeSelf: true) == (try Matrix([[6, 8], [8, 10]])))
        // A Aᵀ
        #expect(
            try a.multiplied(by: a, transposeOther: true)
                == (try Matrix([[5, 11, 17], [11, 25, 39], [17, 39, 61]]))
        )
        // Aᵀ Bᵀ = (B A)ᵀ
        #expect(
            try a.multiplied(by: b, transposeSelf: true, transposeOther: true) == (try Matrix([[76, 103], [100, 136]]))
        )

        // alpha and beta: C = 2 Aᵀ D - C
        var c = try Matrix<S>([[1, 1], [1, 1]])
        try Matrix.gemm(a, transposeA: true, d, alpha: 2, beta: -1, into: &c)
        #expect(c == (try Matrix([[11, 15], [15, 19]])))

        // Empty inner dimension: C = beta * C.
        var scaled = Matrix<S>(rows: 2, columns: 3, repeating: 1)
        try Matrix.gemm(Matrix(rows: 2, columns: 0), Matrix(rows: 0, columns: 3), beta: 0.5, into: &scaled)
        #expect(scaled == Matrix(rows: 2, columns: 3, repeating: 0.5))
    }

    @Test func gemmKnownAnswers() throws {
        try gemmCases(Float.self)
        try gemmCases(Double.self)
    }

    private func gemmAgainstReference<S: BLASScalar>(_: S.Type) throws {
        for transposeA in [false, true] {
            for transposeB in [false, true] {
                let (m, k, n) = (5, 7, 4)
                let a = sampleMatrix(S.self, rows: transposeA ? k : m, columns: transposeA ? m : k, seed: 1)
                let b = sampleMatrix(S.self, rows: transposeB ? n : k, columns: transposeB ? k : n, seed: 2)
                let product = try a.multiplied(by: b, transposeSelf: transposeA, transposeOther: transposeB)
                #expect(product == referenceProduct(a, transposeA: transposeA, b, transposeB: transposeB))
            }
        }
    }

    @Test func gemmAllTransposesMatchReference() throws {
        try gemmAgainstReference(Float.self)
        try gemmAgainstReference(Double.self)
    }

    @Test func gemmShapeMismatch() throws {
        let a = try Matrix<Float>([[1, 2], [3, 4], [5, 6]])
        #expect(throws: LinearAlgebraError.shapeMismatch(operation: "gemm", detail: "A is 3x2 but B is 3x2")) {
            try a.multiplied(by: a)
        }
        #expect(throws: LinearAlgebraError.shapeMismatch(operation: "gemm", detail: "A^T is 2x3 but B^T is 2x3")) {
            try a.multiplied(by: a, transposeSelf: true, transposeOther: true)
        }
        var c = Matrix<Float>(rows: 2, columns: 2, repeating: 9)
        #expect(throws: LinearAlgebraError.shapeMismatch(operation: "gemm", detail: "op(A) op(B) is 3x3 but C is 2x2")) {
            try Matrix.gemm(a, a, transposeB: true, into: &c)
        }
        #expect(c == Matrix(rows: 2, columns: 2, repeating: 9))
    }

    // MARK: Rank-one updates

    private func rankOneCases<S: BLASScalar>(_: S.Type) throws {
        var g = try Matrix<S>([[1, 0, 0], [0, 1, 0]])
        try g.ger([1, 2], [3, 4, 5], alpha: 2)
        #expect(g == (try Matrix([[7, 8, 10], [12, 17, 20]])))

        var s = try Matrix<S>([[1, 2], [2, 3]])
        try s.syr([1, 2])
        #expect(s == (try Matrix([[2, 4], [4, 7]])))

        var s3 = Matrix<S>.identity(3)
        try s3.syr([1, 2, 3], alpha: 0.5)
        #expect(s3 == (try Matrix([[1.5, 1, 1.5], [1, 3, 3], [1.5, 3, 5.5]])))
        #expect(s3 == s3.transposed)

        var r = Matrix<S>(rows: 2, columns: 3)
        try r.addRow(1, [1, 2, 3], alpha: 2)
        try r.addRow(1, [1, 1, 1])
        #expect(r == (try Matrix([[0, 0, 0], [3, 5, 7]])))
    }

    @Test func rankOneUpdatesKnownAnswers() throws {
        try rankOneCases(Float.self)
        try rankOneCases(Double.self)
    }

    @Test func rankOneUpdateErrors() throws {
        var a = try Matrix<Double>([[1, 2, 3], [4, 5, 6]])
        let original = a
        #expect(throws: LinearAlgebraError.shapeMismatch(operation: "ger", detail: "A is 2x3 but x has 3 elements")) {
            try a.ger([1, 2, 3], [1, 2, 3])
        }
        #expect(throws: LinearAlgebraError.shapeMismatch(operation: "ger", detail: "A is 2x3 but y has 2 elements")) {
            try a.ger([1, 2], [1, 2])
        }
        #expect(throws: LinearAlgebraError.shapeMismatch(operation: "syr", detail: "A is 2x3 but must be square")) {
            try a.syr([1, 2])
        }
        var square = Matrix<Double>.identity(2)
        expectShapeMismatch("syr") { try square.syr([1, 2, 3]) }
        #expect(throws: LinearAlgebraError.invalidArgument(operation: "addRow", detail: "row 2 is out of range 0..<2 for a 2x3 matrix")) {
            try a.addRow(2, [1, 2, 3])
        }
        #expect(throws: LinearAlgebraError.shapeMismatch(operation: "addRow", detail: "A is 2x3 but x has 2 elements")) {
            try a.addRow(0, [1, 2])
        }
        #expect(a == original)
        #expect(square == .identity(2))
    }
}
