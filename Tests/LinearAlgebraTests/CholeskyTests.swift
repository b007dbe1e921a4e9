import Foundation
import LinearAlgebra
import Testing

@Suite("Cholesky and posv")
struct CholeskyTests {
    /// A = L Lᵀ with L = [[2, 0, 0], [6, 1, 0], [-8, 5, 3]], det A = 36.
    private func spd<S: BLASScalar>(_: S.Type) throws -> Matrix<S> {
        try Matrix([[4, 12, -16], [12, 37, -43], [-16, -43, 98]])
    }

    // MARK: Known answers

    private func factorAndSolve<S: BLASScalar>(_: S.Type) throws {
        let a = try spd(S.self)
        let cholesky = try Cholesky(a)

        #expect(cholesky.dimension == 3)
        #expect(isClose(cholesky.lower, try Matrix([[2, 0, 0], [6, 1, 0], [-8, 5, 3]])))
        #expect(isClose(try cholesky.lower.multiplied(by: cholesky.lower, transposeOther: true), a))
        #expect(isClose([cholesky.logDeterminant], [S(log(36.0))]))

        // A [1, 2, 3] = [-20, -43, 192]
        #expect(isClose(try cholesky.solve([-20, -43, 192]), [1, 2, 3]))

        // Two right-hand sides: A x₁ = b₁ and A e₁ = first column of A.
        let b = try Matrix<S>([[-20, 4], [-43, 12], [192, -16]])
        #expect(isClose(try cholesky.solve(b), try Matrix([[1, 1], [2, 0], [3, 0]])))

        #expect(isClose(try choleskySolve(a, [-20, -43, 192]), [1, 2, 3]))
    }

    @Test func knownSPDMatrix() throws {
        try factorAndSolve(Float.self)
        try factorAndSolve(Double.self)
    }

    @Test func onlyLowerTriangleIsRead() throws {
        var a = try spd(Double.self)
        a[0, 2] = 1000  // garbage in the upper triangle
        #expect(isClose(try Cholesky(a).lower, try Matrix([[2, 0, 0], [6, 1, 0], [-8, 5, 3]])))
    }

    @Test func emptyMatrix() throws {
        let cholesky = try Cholesky(Matrix<Double>(rows: 0, columns: 0))
        #expect(cholesky.logDeterminant == 0)
        #expect(try cholesky.solve([]) == [])
        #expect(try choleskySolve(Matrix<Float>(rows: 0, columns: 0), []) == [])
    }

    // MARK: Failures

    @Test func notPositiveDefiniteThrowsLAPACKInfo() throws {
        // Leading minor of order 1 is 1 > 0; of order 2 is 1 - 4 = -3.
        let indefinite = try Matrix<Double>([[1, 2], [2, 1]])
        #expect(throws: LinearAlgebraError.lapack(routine: "dpotrf", info: 2)) { try Cholesky(indefinite) }
        #expect(throws: LinearAlgebraError.lapack(routine: "dposv", info: 2)) { try choleskySolve(indefinite, [1, 1]) }

        let indefiniteFloat = try Matrix<Float>([[1, 2], [2, 1]])
        #expect(throws: LinearAlgebraError.lapack(routine: "spotrf", info: 2)) { try Cholesky(indefiniteFloat) }
        #expect(throws: LinearAlgebraError.lapack(routine: "sposv", info: 2)) { try choleskySolve(indefiniteFloat, [1, 1]) }

        // The first diagonal element is already not positive.
        #expect(throws: LinearAlgebraError.lapack(routine: "dpotrf", info: 1)) {
            try Cholesky(Matrix<Double>([[-1, 0], [0, 1]]))
        }
    }

    @Test func nanInputIsReportedNotTrapped() throws {
        // LAPACKE's NaN check reports the matrix argument (4th of potrf) as illegal.
        #expect(throws: LinearAlgebraError.lapack(routine: "dpotrf", info: -4)) {
            try Cholesky(Matrix<Double>([[.nan, 0], [0, 1]]))
        }
    }

    @Test func shapeErrors() throws {
        #expect(throws: LinearAlgebraError.shapeMismatch(operation: "potrf", detail: "A is 2x3 but must be square")) {
            try Cholesky(Matrix<Double>(rows: 2, columns: 3))
        }
        #expect(throws: LinearAlgebraError.shapeMismatch(operation: "posv", detail: "A is 3x2 but must be square")) {
            try choleskySolve(Matrix<Float>(rows: 3, columns: 2), [1, 2, 3])
        }
        let cholesky = try Cholesky(Matrix<Double>.identity(3))
        #expect(throws: LinearAlgebraError.shapeMismatch(operation: "potrs", detail: "A is 3x3 but b has 2 elements")) {
            try cholesky.solve([1, 2])
        }
        #expect(throws: LinearAlgebraError.shapeMismatch(operation: "potrs", detail: "A is 3x3 but B is 2x2")) {
            try cholesky.solve(Matrix<Double>.identity(2))
        }
        #expect(throws: LinearAlgebraError.shapeMismatch(operation: "posv", detail: "A is 3x3 but b has 4 elements")) {
            try choleskySolve(Matrix<Double>.identity(3), [1, 2, 3, 4])
        }
    }
}
