import LinearAlgebra
import Testing

@Suite("BLASKernels")
struct BLASKernelsTests {
    // MARK: gemv

    /// The signature shared by `BLASKernels.sgemv` and `BLASKernels.dgemv`.
    private typealias GemvKernel<S> = (
        Int, Int, UnsafeBufferPointer<S>, UnsafeBufferPointer<S>, UnsafeMutableBufferPointer<S>, S, S, Bool
    ) -> Void

    /// Checks `kernel` against `Matrix.gemv` for both transposes, with a `y`
    /// longer than needed whose tail must be left alone.
    private func gemvKernelMatches<S: BLASScalar>(_ kernel: GemvKernel<S>, alpha: S, beta: S) throws {
        let a = sampleMatrix(S.self, rows: 5, columns: 7, seed: 3)
        for transpose in [false, true] {
            let x = sampleVector(S.self, count: transpose ? 5 : 7, seed: 1)
            let start = sampleVector(S.self, count: transpose ? 7 : 5, seed: 2)
            var expected = start
            try a.gemv(x, alpha: alpha, beta: beta, into: &expected, transpose: transpose)

            var y = start + [42]
            a.storage.withUnsafeBufferPointer { aBuffer in
                x.withUnsafeBufferPointer { xBuffer in
                    y.withUnsafeMutableBufferPointer { yBuffer in
                        kernel(5, 7, aBuffer, xBuffer, yBuffer, alpha, beta, transpose)
                    }
                }
            }
            #expect(y == expected + [42], "\(S.self), transpose: \(transpose)")
        }
    }

    @Test func gemvKernelsMatchMatrixGemv() throws {
        try gemvKernelMatches(BLASKernels.sgemv, alpha: 2, beta: -1)
        try gemvKernelMatches(BLASKernels.dgemv, alpha: -3, beta: 0.5)
        try gemvKernelMatches(BLASKernels.dgemv, alpha: 1, beta: 0)
    }

    // MARK: gemm

    /// Runs `kernel` on the storage of `a`, `b` and `c`.
    private func withBuffers<S: BLASScalar>(
        _ a: Matrix<S>, _ b: Matrix<S>, _ c: inout Matrix<S>,
        _ kernel: (UnsafeBufferPointer<S>, UnsafeBufferPointer<S>, UnsafeMutableBufferPointer<S>) -> Void
    ) {
        a.storage.withUnsafeBufferPointer { aBuffer in
            b.storage.withUnsafeBufferPointer { bBuffer in
                c.storage.withUnsafeMutableBufferPointer { cBuffer in kernel(aBuffer, bBuffer, cBuffer) }
            }
        }
    }

    @Test(arguments: [(false, false), (false, true), (true, false), (true, true)])
    func gemmKernelsMatchMatrixGemm(transposeA: Bool, transposeB: Bool) throws {
        let (m, n, k) = (4, 3, 6)
        let aShape = transposeA ? (k, m) : (m, k)
        let bShape = transposeB ? (n, k) : (k, n)

        let ad = sampleMatrix(Double.self, rows: aShape.0, columns: aShape.1, seed: 7)
        let bd = sampleMatrix(Double.self, rows: bShape.0, columns: bShape.1, seed: 8)
        var expectedD = sampleMatrix(Double.self, rows: m, columns: n, seed: 9)
        var cd = expectedD
        try Matrix.gemm(ad, transposeA: transposeA, bd, transposeB: transposeB, alpha: 2, beta: 1, into: &expectedD)
        withBuffers(ad, bd, &cd) { a, b, c in
            BLASKernels.dgemm(m: m, n: n, k: k, a: a, transposeA: transposeA, b: b, transposeB: transposeB, c: c, alpha: 2, beta: 1)
        }
        #expect(cd == expectedD)

        let af = sampleMatrix(Float.self, rows: aShape.0, columns: aShape.1, seed: 7)
        let bf = sampleMatrix(Float.self, rows: bShape.0, columns: bShape.1, seed: 8)
        let expectedF = try af.multiplied(by: bf, transposeSelf: transposeA, transposeOther: transposeB)
        var cf = Matrix<Float>(rows: m, columns: n, repeating: .nan)  // beta = 0: not read
        withBuffers(af, bf, &cf) { a, b, c in
            BLASKernels.sgemm(m: m, n: n, k: k, a: a, transposeA: transposeA, b: b, transposeB: transposeB, c: c)
        }
        #expect(cf == expectedF)
    }

    // MARK: Level 1

    @Test func axpyAndDotKernelsMatchArrayFunctions() throws {
        let xf = sampleVector(Float.self, count: 9, seed: 1)
        var yf = sampleVector(Float.self, count: 9, seed: 2)
        var expectedF = yf
        try axpy(1.5, xf, &expectedF)
        #expect(xf.withUnsafeBufferPointer { x in yf.withUnsafeBufferPointer { y in BLASKernels.sdot(count: 9, x: x, y: y) } } == (try dot(xf, yf)))
        xf.withUnsafeBufferPointer { x in
            yf.withUnsafeMutableBufferPointer { y in BLASKernels.saxpy(count: 9, alpha: 1.5, x: x, y: y) }
        }
        #expect(yf == expectedF)

        let xd = sampleVector(Double.self, count: 9, seed: 3)
        var yd = sampleVector(Double.self, count: 9, seed: 4)
        var expectedD = yd
        try axpy(-2, xd, &expectedD)
        #expect(xd.withUnsafeBufferPointer { x in yd.withUnsafeBufferPointer { y in BLASKernels.ddot(count: 9, x: x, y: y) } } == (try dot(xd, yd)))
        // Only the first `count` elements are touched.
        xd.withUnsafeBufferPointer { x in
            yd.withUnsafeMutableBufferPointer { y in BLASKernels.daxpy(count: 4, alpha: -2, x: x, y: y) }
        }
        #expect(Array(yd[..<4]) == Array(expectedD[..<4]))
        #expect(Array(yd[4...]) == Array(sampleVector(Double.self, count: 9, seed: 4)[4...]))
    }
}
