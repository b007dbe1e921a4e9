@testable import LinearAlgebra
import Testing

@Suite("BLAS level 1 on arrays")
struct VectorBLASTests {
    // MARK: Known answers

    private func level1<S: BLASScalar>(_: S.Type) throws {
        #expect(try dot([1, 2, 3] as [S], [4, 5, 6]) == 32)
        #expect(try dot([] as [S], []) == 0)

        var y: [S] = [10, 20, 30]
        try axpy(2, [1, 2, 3], &y)
        #expect(y == [12, 24, 36])

        var x: [S] = [1, -2, 0.5]
        scal(3, &x)
        #expect(x == [3, -6, 1.5])

        #expect(isClose([nrm2([3, 4] as [S])], [5]))
        #expect(isClose([nrm2([1, 2, 2] as [S])], [3]))
        #expect(nrm2([] as [S]) == 0)
    }

    @Test func knownAnswers() throws {
        try level1(Float.self)
        try level1(Double.self)
    }

    // MARK: Shape errors

    @Test func lengthMismatchThrowsAndLeavesOutputUnchanged() {
        #expect(throws: LinearAlgebraError.shapeMismatch(operation: "dot", detail: "x has 3 elements but y has 2")) {
            try dot([1, 2, 3] as [Double], [1, 2])
        }
        var y: [Float] = [1, 2]
        #expect(throws: LinearAlgebraError.shapeMismatch(operation: "axpy", detail: "x has 3 elements but y has 2")) {
            try axpy(1, [1, 2, 3], &y)
        }
        #expect(y == [1, 2])
    }

    // MARK: 32-bit chunking

    /// Long vectors are split into chunks of at most `Int32.max`; a small
    /// chunk limit exercises the same path.
    private func chunking<S: BLASScalar>(_: S.Type) {
        let routines = S.blasRoutines
        let x = sampleVector(S.self, count: 7, seed: 1)
        let y = sampleVector(S.self, count: 7, seed: 2)
        let fullDot = routines.dot(count: 7, x, y)
        #expect(routines.dot(count: 7, x, y, chunkLimit: 3) == fullDot)
        #expect(fullDot == zip(x, y).reduce(0) { $0 + $1.0 * $1.1 })

        var chunked = y
        routines.axpy(count: 7, alpha: 2, x, &chunked, chunkLimit: 2)
        #expect(chunked == zip(x, y).map { 2 * $0 + $1 })

        var scaled = x
        routines.scal(count: 7, alpha: -3, &scaled, chunkLimit: 4)
        #expect(scaled == x.map { -3 * $0 })

        #expect(isClose([routines.nrm2(count: 3, [3, 4, 12], chunkLimit: 1)], [13]))
        #expect(isClose([routines.nrm2(count: 7, x, chunkLimit: 2)], [nrm2(x)]))
    }

    @Test func chunkedLevel1MatchesSingleCall() {
        chunking(Float.self)
        chunking(Double.self)
    }

    @Test func chunkedNorm2DoesNotOverflow() {
        // (3e30)² overflows Float, but the combined norm 5e30 does not.
        let norm = Float.blasRoutines.nrm2(count: 2, [3e30, 4e30], chunkLimit: 1)
        #expect(isClose([norm / 1e30], [5]))
        #expect(Float.blasRoutines.nrm2(count: 2, [.nan, 1], chunkLimit: 1).isNaN)
    }
}
