import Foundation
import CKernels

// MARK: - Log-profile storage

/// The profile model's log-profile matrix L (targets x `width` logical
/// columns), in single precision, stored in two parts laid out for scoring:
///
/// - `dense`: every column except the previous-target block (bias, time
///   kernels, weekday, weekend, context values, "no previous", then the group
///   and context-key denominators), column by column: dense column `p` is
///   `dense[p * rows ..< (p + 1) * rows]`. A moment's vector is dense there
///   but not everywhere (one weekday, one weekend column, a few context
///   values), so scoring reads only the columns whose weight is not zero.
/// - `transitions`: column "previous = p" of L, sparse: only the targets that
///   p ever preceded hold their own entry, every other target the block's
///   `absentTransition` (log α, the entry of a zero count). A moment has at
///   most one previous target; its column is written out into a scratch
///   column of `rows` values and read as one more contiguous column of the
///   same sum (the same entries and order as a dense block, so the same bits),
///   while the stored block is O(pairs that occurred), not targets x targets.
///
/// Entries are `Float`: the log-counts they hold are rounded to about 6e-8
/// relative (so a log-score moves by about 1e-6 at most), and a product reads
/// half the memory. Every product sums in double precision with one fused
/// multiply-add per column (`proactive_weighted_columns`), the same bits on
/// every CPU and for every caller: `logScores`, the batch `scores(at:)`, the
/// per-group split and the explanations all read these same entries.
///
/// Logical column `j` of L maps to one storage place; `subscript(row:column:)`
/// reads and writes through that map, so code that thinks in L's columns
/// (refreshing entries, explanations) does not see the split.
struct LogProfileMatrix: Sendable, Equatable {
    /// Number of targets (rows of L).
    let rows: Int
    /// Logical columns of L.
    let width: Int
    /// The logical column of each dense storage column.
    let denseColumns: [Int]
    /// The logical columns of the previous-target block (one per target, in target order).
    let previousColumns: Range<Int>
    private(set) var dense: [Float]
    /// Per previous target p (block offset): target row -> L[row, previous = p], for the stored pairs.
    private(set) var transitions: [[Int: Float]]
    /// L[row, previous = p] of every pair not in `transitions`.
    let absentTransition: Float
    /// Dense storage position of each logical column, or -1 for the previous-target block.
    private let densePosition: [Int]

    var denseWidth: Int { denseColumns.count }

    /// A matrix for `layout` with `extraColumns` columns after the feature vector: zero
    /// outside the previous-target block, `absentTransition` in it.
    init(layout: FeatureLayout, extraColumns: Int, absentTransition: Double = 0) {
        rows = layout.targetCount
        width = layout.dimension + extraColumns
        previousColumns = layout.previous.lowerBound ..< layout.noPrevious
        denseColumns = Array(0 ..< previousColumns.lowerBound) + Array(previousColumns.upperBound ..< width)
        var position = [Int](repeating: -1, count: width)
        for (p, j) in denseColumns.enumerated() { position[j] = p }
        densePosition = position
        dense = [Float](repeating: 0, count: rows * denseColumns.count)
        transitions = [[Int: Float]](repeating: [:], count: previousColumns.count)
        self.absentTransition = Float(absentTransition)
    }

    /// L[row, column] for a logical column (set: rounded to the nearest `Float`).
    subscript(row: Int, column: Int) -> Double {
        get {
            let p = densePosition[column]
            return Double(p >= 0 ? dense[p * rows + row] : transitions[column - previousColumns.lowerBound][row] ?? absentTransition)
        }
        set {
            let p = densePosition[column]
            if p >= 0 {
                dense[p * rows + row] = Float(newValue)
            } else {
                let value = Float(newValue)
                transitions[column - previousColumns.lowerBound][row] = value == absentTransition ? nil : value
            }
        }
    }

    /// Copies in every entry of `old`, a matrix of fewer targets and the same other columns:
    /// its rows of each dense column and its previous targets' transition columns.
    mutating func copyEntries(of old: LogProfileMatrix) {
        precondition(old.rows <= rows && old.denseWidth == denseWidth && old.previousColumns.count <= previousColumns.count
                     && old.absentTransition == absentTransition, "shape mismatch")
        for p in 0 ..< denseWidth {
            for row in 0 ..< old.rows { dense[p * rows + row] = old.dense[p * old.rows + row] }
        }
        for p in old.transitions.indices { transitions[p] = old.transitions[p] }
    }

    // MARK: Products

    /// A moment's previous target (its index) and that column's value in x'.
    typealias PreviousTarget = (target: Int, weight: Double)

    /// y = L · x' for one moment given by its dense part and its previous target, if any.
    /// - Complexity: one pass over the rows reading the dense columns whose weight is
    ///   not zero, plus the previous target's transition row.
    func multiply(dense x: [Double], previous: PreviousTarget?, into y: UnsafeMutableBufferPointer<Double>) {
        precondition(x.count == denseWidth && y.count >= rows, "shape mismatch")
        x.withUnsafeBufferPointer { weights in
            multiply(weights: weights, positions: 0 ..< denseWidth, previous: previous, into: y)
        }
    }

    /// y = Σ over the dense positions `positions` of x[p] · (dense column p), plus the
    /// transition column of `previous` (zero weights skipped). An empty sum writes zeros.
    func multiply(weights x: UnsafeBufferPointer<Double>, positions: some Sequence<Int>, previous: PreviousTarget?,
                  into y: UnsafeMutableBufferPointer<Double>) {
        precondition(y.count >= rows, "shape mismatch")
        guard rows > 0, let output = y.baseAddress else { return }
        // At most every dense column plus one transition column, written out in `column`.
        withUnsafeTemporaryAllocation(of: UnsafePointer<Float>?.self, capacity: denseWidth + 1) { columns in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: denseWidth + 1) { weights in
                withUnsafeTemporaryAllocation(of: Float.self, capacity: rows) { column in
                    dense.withUnsafeBufferPointer { a in
                        var count = 0
                        for p in positions where x[p] != 0 {
                            columns[count] = a.baseAddress! + p * rows
                            weights[count] = x[p]
                            count += 1
                        }
                        if let (target, weight) = previous, weight != 0 {
                            column.initialize(repeating: absentTransition)
                            for (row, value) in transitions[target] { column[row] = value }
                            columns[count] = UnsafePointer(column.baseAddress!)
                            weights[count] = weight
                            count += 1
                        }
                        proactive_weighted_columns(columns.baseAddress!, weights.baseAddress!, count, rows, output)
                    }
                }
            }
        }
    }

    /// The stored previous-target pairs (the block's size in memory).
    var storedTransitions: Int { transitions.reduce(0) { $0 + $1.count } }

    /// Σ over targets of L[·, column] (used for per-column means).
    func columnSum(_ column: Int) -> Double {
        var total = 0.0
        for t in 0 ..< rows { total += self[t, column] }
        return total
    }
}
