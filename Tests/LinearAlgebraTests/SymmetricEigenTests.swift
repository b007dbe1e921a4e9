import Foundation
import LinearAlgebra
import Testing

@Suite("SymmetricEigen")
struct SymmetricEigenTests {
    /// Checks A V = V diag(values), Vᵀ V = I and ascending values.
    private func expectValidDecomposition<S: BLASScalar>(
        _ a: Matrix<S>, _ eigen: SymmetricEigen<S>, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let n = a.rows
        let v = eigen.vectors
        #expect(v.rows == n && v.columns == n, sourceLocation: sourceLocation)
        for j in 0..<n {
            let column = (0..<n).map { v[$0, j] }
            let av = try a.multiplied(by: column)
            #expect(isClose(av, column.map { eigen.values[j] * $0 }), "A v = λ v for j = \(j)", sourceLocation: sourceLocation)
        }
        #expect(isClose(try v.multiplied(by: v, transposeSelf: true), .identity(n)), sourceLocation: sourceLocation)
        #expect(eigen.values == eigen.values.sorted(), sourceLocation: sourceLocation)
    }

    // MARK: Known answers

    private func knownAnswers<S: BLASScalar>(_: S.Type) throws {
        let a2 = try Matrix<S>([[2, 1], [1, 2]])
        let eigen2 = try SymmetricEigen(a2)
        #expect(isClose(eigen2.values, [1, 3]))
        // Eigenvectors (1, -1)/√2 and (1, 1)/√2, up to sign.
        let r = S(1 / 2.0.squareRoot())
        #expect(isClose(eigen2.vectors.storage.map(abs), [r, r, r, r]))
        try expectValidDecomposition(a2, eigen2)

        // Second-difference matrix: eigenvalues 2 - √2, 2, 2 + √2.
        let a3 = try Matrix<S>([[2, -1, 0], [-1, 2, -1], [0, -1, 2]])
        let eigen3 = try SymmetricEigen(a3)
        let s = S(2.0.squareRoot())
        #expect(isClose(eigen3.values, [2 - s, 2, 2 + s]))
        try expectValidDecomposition(a3, eigen3)

        let diagonal = try Matrix<S>([[3, 0, 0], [0, 1, 0], [0, 0, 2]])
        let eigenDiagonal = try SymmetricEigen(diagonal)
        #expect(isClose(eigenDiagonal.values, [1, 2, 3]))
        try expectValidDecomposition(diagonal, eigenDiagonal)
    }

    @Test func knownMatrices() throws {
        try knownAnswers(Float.self)
        try knownAnswers(Double.self)
    }

    @Test func emptyMatrix() throws {
        let eigen = try SymmetricEigen(Matrix<Double>(rows: 0, columns: 0))
        #expect(eigen.values.isEmpty && eigen.vectors.storage.isEmpty)
    }

    // MARK: Errors

    @Test func errors() {
        #expect(throws: LinearAlgebraError.shapeMismatch(operation: "syevd", detail: "A is 2x3 but must be square")) {
            try SymmetricEigen(Matrix<Float>(rows: 2, columns: 3))
        }
        #expect(throws: LinearAlgebraError.lapack(routine: "dsyevd", info: -5)) {
            try SymmetricEigen(Matrix<Double>([[.nan, 0], [0, 1]]))
        }
    }
}
