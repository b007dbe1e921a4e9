import LinearAlgebra
import Testing

@Suite("Matrix")
struct MatrixTests {
    // MARK: Construction

    @Test func initializersAndAccess() throws {
        let m = try Matrix<Double>([[1, 2, 3], [4, 5, 6]])
        #expect(m.rows == 2 && m.columns == 3)
        #expect(m.storage == [1, 2, 3, 4, 5, 6])
        #expect(m[1, 0] == 4)
        #expect(Array(m.row(1)) == [4, 5, 6])
        #expect(try Matrix(rows: 2, columns: 3, storage: [1, 2, 3, 4, 5, 6]) == m)
        #expect(Matrix<Float>(rows: 2, columns: 2, repeating: 7).storage == [7, 7, 7, 7])
        #expect(Matrix<Float>(rows: 2, columns: 2).storage == [0, 0, 0, 0])

        let empty = try Matrix<Float>([])
        #expect(empty.rows == 0 && empty.columns == 0 && empty.storage.isEmpty)

        var w = m
        w[0, 2] = -1
        #expect(w.storage == [1, 2, -1, 4, 5, 6])
    }

    @Test func identityAndTranspose() throws {
        #expect(Matrix<Double>.identity(3) == (try Matrix([[1, 0, 0], [0, 1, 0], [0, 0, 1]])))
        #expect(Matrix<Float>.identity(0).storage.isEmpty)
        let m = try Matrix<Float>([[1, 2, 3], [4, 5, 6]])
        #expect(m.transposed == (try Matrix([[1, 4], [2, 5], [3, 6]])))
        #expect(m.transposed.transposed == m)
        #expect(m.description == "[1.0, 2.0, 3.0]\n[4.0, 5.0, 6.0]")
    }

    // MARK: Errors

    @Test func badShapesThrow() {
        #expect(throws: LinearAlgebraError.shapeMismatch(
            operation: "Matrix.init", detail: "a 2x3 matrix needs 6 elements but storage has 5"
        )) {
            try Matrix<Double>(rows: 2, columns: 3, storage: [1, 2, 3, 4, 5])
        }
        #expect(throws: LinearAlgebraError.shapeMismatch(
            operation: "Matrix.init", detail: "row 0 has 2 elements but row 1 has 1"
        )) {
            try Matrix<Float>([[1, 2], [3]])
        }
        #expect(throws: LinearAlgebraError.invalidArgument(
            operation: "Matrix.init", detail: "dimensions must be non-negative, got -1x2"
        )) {
            try Matrix<Float>(rows: -1, columns: 2, storage: [])
        }
    }

    @Test func errorDescriptions() {
        #expect(
            LinearAlgebraError.shapeMismatch(operation: "gemv", detail: "A is 3x4 but x has 5 elements").description
                == "gemv: shape mismatch: A is 3x4 but x has 5 elements"
        )
        let notPD = LinearAlgebraError.lapack(routine: "dpotrf", info: 2).description
        #expect(notPD.contains("dpotrf"))
        #expect(notPD.contains("leading minor of order 2 is not positive definite"))
        #expect(LinearAlgebraError.lapack(routine: "sposv", info: 3).description.contains("order 3 is not positive definite"))
        #expect(LinearAlgebraError.lapack(routine: "dsyevd", info: 1).description.contains("failed to converge"))
        #expect(LinearAlgebraError.lapack(routine: "dpotrs", info: -7).description.contains("argument 7 had an illegal value"))
        #expect(
            LinearAlgebraError.invalidArgument(operation: "addRow", detail: "x").description
                == "addRow: invalid argument: x"
        )
    }
}
