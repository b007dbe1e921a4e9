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

    @Test func buildInformation() {
        #expect(!BLAS.coreType.isEmpty)
        #expect(BLAS.configuration.contains("OpenBLAS"))
    }
}
