import LinearAlgebra
import Testing

@Suite("BLAS library")
struct BLASThreadsTests {
    @Test func threadCount() {
        // Leaves OpenBLAS single-threaded, which keeps every other test deterministic.
        BLAS.setThreadCount(1)
        #expect(BLAS.threadCount == 1)
        BLAS.setThreadCount(0)  // clamped to 1
        #expect(BLAS.threadCount == 1)
    }

    @Test func openAheadFromManyThreadsThenCompute() async {
        // Any number of callers, at once and again later: one opening, then every call computes as before.
        await withTaskGroup(of: Void.self) { group in
            for _ in 0 ..< 8 { group.addTask { BLAS.openAhead() } }
        }
        BLAS.openAhead()
        let x: [Double] = [1, 2, 3], y: [Double] = [4, 5, 6]
        let dot = x.withUnsafeBufferPointer { x in y.withUnsafeBufferPointer { y in BLASKernels.ddot(count: 3, x: x, y: y) } }
        #expect(dot == 32)
        #expect(BLAS.configuration.contains("OpenBLAS"))
    }

    @Test func buildInformation() {
        #expect(!BLAS.coreType.isEmpty)
        #expect(BLAS.configuration.contains("OpenBLAS"))
    }
}
