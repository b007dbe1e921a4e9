import Foundation
import LinearAlgebra

// MARK: - Environment

/// The BLAS setup every benchmark runs under: one thread (latency paths are
/// single-threaded), reported with the kernel OpenBLAS picked.
public enum BenchmarkEnvironment {
    /// Pins OpenBLAS to one thread and returns the line to print.
    @discardableResult
    public static func pinBLAS() -> String {
        BLAS.setThreadCount(1)
        return blasLine
    }

    /// `BLAS core=<kernel> threads=<n> (<build configuration>)`.
    public static var blasLine: String {
        "BLAS core=\(BLAS.coreType) threads=\(BLAS.threadCount) (\(BLAS.configuration))"
    }

    /// Prints `line` to standard error (the benchmark tool keeps standard output for its tables).
    public static func note(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

// MARK: - Mutable state shared with a benchmark closure

/// A reference holding state a benchmark mutates across iterations (a model
/// that keeps learning, a ranker's reusable buffers). Benchmarks run their
/// iterations on one thread at a time.
public final class Box<Value>: @unchecked Sendable {
    public var value: Value
    public init(_ value: Value) { self.value = value }
}

// MARK: - Latency statistics

/// Wall-clock samples in nanoseconds with nearest-rank percentiles.
public struct LatencySamples: Sendable {
    public private(set) var nanoseconds: [UInt64] = []

    public init() {}

    public mutating func record(_ value: UInt64) { nanoseconds.append(value) }

    /// Times `body` `iterations` times (after `warmup` untimed calls).
    public static func measure(iterations: Int, warmup: Int = 10, _ body: () -> Void) -> LatencySamples {
        for _ in 0 ..< warmup { body() }
        var samples = LatencySamples()
        samples.nanoseconds.reserveCapacity(iterations)
        for _ in 0 ..< iterations {
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            samples.record(DispatchTime.now().uptimeNanoseconds - start)
        }
        return samples
    }

    /// The `p`-th percentile (0...100, nearest rank) in microseconds.
    public func percentile(_ p: Double) -> Double {
        guard !nanoseconds.isEmpty else { return .nan }
        let sorted = nanoseconds.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return Double(sorted[min(max(rank, 1), sorted.count) - 1]) / 1_000
    }
}
