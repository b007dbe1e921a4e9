import Foundation
import ProactiveModels

// MARK: - A fixed pool of workers

/// Runs independent jobs (one per user) on a fixed number of workers and
/// returns their results in input order, so the outcome never depends on the
/// number of workers or on which job finished first.
///
/// Each worker takes the next job not yet taken, in `order` (largest first
/// balances the pool: a big user started last would keep one core busy
/// while the other waits). The jobs run synchronously inside the workers;
/// whoever calls this should run BLAS on one thread per worker
/// (`BLAS.setThreadCount(1)`), since the parallelism is over users.
///
/// ```swift
/// let squares = await WorkerPool.map(Array(1...10), workers: 2) { $0 * $0 }
/// ```
public enum WorkerPool {
    /// The default number of workers: the active processor count.
    public static var defaultWorkers: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// - Parameters:
    ///   - inputs: The jobs.
    ///   - workers: How many run at once (at least 1; at most one per job).
    ///   - order: The order jobs are taken in (indices into `inputs`); default, input order.
    ///   - body: One job; must not depend on the other jobs.
    /// - Returns: `body(inputs[i])` at index `i`.
    public static func map<Input: Sendable, Output: Sendable>(
        _ inputs: [Input], workers: Int, order: [Int]? = nil, _ body: @escaping @Sendable (Input) -> Output
    ) async -> [Output] {
        let order = order ?? Array(inputs.indices)
        precondition(order.count == inputs.count && Set(order) == Set(inputs.indices), "order must be a permutation of the inputs")
        let queue = JobQueue(order)
        let width = max(1, min(workers, inputs.count))
        var slots = [Output?](repeating: nil, count: inputs.count)
        await withTaskGroup(of: [(Int, Output)].self) { group in
            for _ in 0..<width {
                group.addTask {
                    var done: [(Int, Output)] = []
                    while let index = queue.next() { done.append((index, body(inputs[index]))) }
                    return done
                }
            }
            for await finished in group {
                for (index, output) in finished { slots[index] = output }
            }
        }
        return slots.map { $0! }
    }

    /// Indices in descending `size`, ties in input order: the largest-first order for `map`.
    public static func largestFirst(_ sizes: [Int]) -> [Int] {
        sizes.indices.sorted { sizes[$0] != sizes[$1] ? sizes[$0] > sizes[$1] : $0 < $1 }
    }
}

/// The shared "next job" counter of a pool.
private final class JobQueue: @unchecked Sendable {
    private let lock = NSLock()
    private let order: [Int]
    private var position = 0

    init(_ order: [Int]) { self.order = order }

    func next() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard position < order.count else { return nil }
        position += 1
        return order[position - 1]
    }
}
