import Dispatch
import Foundation
import LinearAlgebra

// MARK: - Users in parallel

/// Applies `transform` to every element on all cores (`DispatchQueue.concurrentPerform`),
/// keeping the input order, so results equal a serial map. BLAS runs on one thread per
/// worker: it is set to one thread (and left so, as latency paths want it; changing it back
/// while another thread may be inside BLAS is what OpenBLAS forbids).
/// - Complexity: the slowest worker's share of the work.
/// - Parameter workers: at most this many at once (default: the number of cores).
func parallelMap<Element: Sendable, Result: Sendable>(_ elements: [Element], workers: Int? = nil,
                                                      _ transform: @Sendable (Element) throws -> Result) rethrows -> [Result] {
    let width = min(elements.count, max(1, workers ?? ProcessInfo.processInfo.activeProcessorCount))
    guard width > 1 else { return try elements.map(transform) }
    if BLAS.threadCount != 1 { BLAS.setThreadCount(1) }
    let results = ResultSlots<Result>(count: elements.count)
    DispatchQueue.concurrentPerform(iterations: width) { worker in
        for index in stride(from: worker, to: elements.count, by: width) {
            results.set(index, Swift.Result { try transform(elements[index]) })
        }
    }
    return try results.values().map { try $0.get() }
}

/// One slot per index, each written once by one worker (under a lock).
private final class ResultSlots<Value: Sendable>: @unchecked Sendable {
    private var slots: [Swift.Result<Value, any Error>?]
    private let lock = NSLock()

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: Swift.Result<Value, any Error>) {
        lock.lock()
        slots[index] = value
        lock.unlock()
    }

    func values() -> [Swift.Result<Value, any Error>] { slots.map { $0! } }
}
