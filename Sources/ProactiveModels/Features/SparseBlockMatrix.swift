import Foundation
import LinearAlgebra

// MARK: - Per-target matrices with a sparse previous-target block

/// A targets x `layout.dimension` matrix (a row per target, a column per
/// feature) stored in two parts:
///
/// - `dense`: every column outside the previous-target block (bias, time
///   kernels, weekday, weekend, context values, "no previous"), row-major;
/// - `previous`: the previous-target block (one column per target), column
///   by column, each holding only the entries of pairs that occurred (target
///   t right after previous target p, keyed by t). A user with n donations
///   has at most n such pairs, where the block has targets x targets entries
///   (8 MB of doubles for 1,000 targets). A moment has one previous target,
///   so a product reads one column's pairs.
///
/// Used for the profile's scaled counts (a pair that never occurred has
/// count 0) and the logistic model's weights (trained only for pairs that
/// occur, see `SoftmaxObjective`). An absent entry reads 0; an entry set or
/// summing to exactly 0 is dropped, so the stored pairs depend only on the
/// values, not on the order of additions and removals.
struct SparseBlockMatrix: Sendable, Equatable {
    let rows: Int
    let dimension: Int
    /// The previous-target columns (without "no previous").
    let block: Range<Int>
    private(set) var dense: [Double]
    /// Per previous target p (block offset): row (target) -> entry.
    private(set) var previous: [[Int: Double]]

    var denseWidth: Int { dimension - block.count }

    /// All zero.
    init(layout: FeatureLayout) {
        rows = layout.targetCount
        dimension = layout.dimension
        block = layout.previous.lowerBound ..< layout.noPrevious
        dense = [Double](repeating: 0, count: rows * (dimension - block.count))
        previous = [[Int: Double]](repeating: [:], count: block.count)
    }

    /// From a full row-major matrix (the saved form of model formats 5 and 6): zeros of the block are not stored.
    init(full matrix: [Double], layout: FeatureLayout) {
        self.init(layout: layout)
        for row in 0 ..< rows {
            for column in 0 ..< dimension where !block.contains(column) || matrix[row * dimension + column] != 0 {
                self[row, column] = matrix[row * dimension + column]
            }
        }
    }

    /// From its parts (model format 7); the caller checks shapes.
    init(layout: FeatureLayout, dense: [Double], previous: [[Int: Double]]) {
        self.init(rows: layout.targetCount, dimension: layout.dimension, block: layout.previous.lowerBound ..< layout.noPrevious,
                  dense: dense, previous: previous)
    }

    init(rows: Int, dimension: Int, block: Range<Int>, dense: [Double], previous: [[Int: Double]]) {
        precondition(dense.count == rows * (dimension - block.count) && previous.count == block.count, "shape mismatch")
        self.rows = rows
        self.dimension = dimension
        self.block = block
        self.dense = dense
        self.previous = previous
    }

    @inline(__always)
    private func densePosition(_ column: Int) -> Int { column < block.lowerBound ? column : column - block.count }

    /// M[row, column] of a logical column.
    subscript(row: Int, column: Int) -> Double {
        get {
            if block.contains(column) { return previous[column - block.lowerBound][row] ?? 0 }
            return dense[row * denseWidth + densePosition(column)]
        }
        set {
            if block.contains(column) {
                previous[column - block.lowerBound][row] = newValue == 0 ? nil : newValue
            } else {
                dense[row * denseWidth + densePosition(column)] = newValue
            }
        }
    }

    /// M[row, column] += value (an entry of the block summing to exactly 0 is dropped).
    mutating func add(_ value: Double, row: Int, column: Int) {
        if block.contains(column) {
            let p = column - block.lowerBound
            let sum = (previous[p][row] ?? 0) + value
            previous[p][row] = sum == 0 ? nil : sum
        } else {
            dense[row * denseWidth + densePosition(column)] += value
        }
    }

    /// The logical columns outside the block, in order.
    var denseColumns: [Int] { Array(0 ..< block.lowerBound) + Array(block.upperBound ..< dimension) }

    /// Multiplies every entry by 2^exponent (exact: a rebase of the anchor).
    mutating func scale(byPowerOfTwo exponent: Int) {
        for i in dense.indices { dense[i] = Foundation.scalbn(dense[i], exponent) }
        for p in previous.indices {
            for row in previous[p].keys { previous[p][row] = Foundation.scalbn(previous[p][row]!, exponent) }
        }
    }

    /// The full row-major matrix (exports, older formats and tests).
    var expanded: [Double] {
        var matrix = [Double](repeating: 0, count: rows * dimension)
        let columns = denseColumns
        for row in 0 ..< rows {
            for (position, column) in columns.enumerated() { matrix[row * dimension + column] = dense[row * denseWidth + position] }
        }
        for (p, entries) in previous.enumerated() {
            for (row, value) in entries { matrix[row * dimension + block.lowerBound + p] = value }
        }
        return matrix
    }

    /// The stored block pairs.
    var storedPairs: Int { previous.reduce(0) { $0 + $1.count } }

    /// The same matrix re-laid into `new`'s layout (columns keep their meaning; dropped targets
    /// and context values lose theirs), given where `old`'s targets and context values went.
    func remapped(from oldLayout: FeatureLayout, to newLayout: FeatureLayout, targetMap: [Int?], contextMap: [Int?]) -> SparseBlockMatrix {
        let columnMap = FeatureLayout.columnMap(from: oldLayout, to: newLayout, targetMap: targetMap, contextMap: contextMap)
        var moved = SparseBlockMatrix(layout: newLayout)
        let columns = denseColumns
        for (row, newRow) in targetMap.enumerated() {
            guard let newRow else { continue }
            for (position, column) in columns.enumerated() {
                guard let newColumn = columnMap[column] else { continue }
                moved[newRow, newColumn] = dense[row * denseWidth + position]
            }
        }
        for (p, entries) in previous.enumerated() {
            guard let newColumn = columnMap[block.lowerBound + p] else { continue }
            for (row, value) in entries {
                if let newRow = targetMap[row] { moved[newRow, newColumn] = value }
            }
        }
        return moved
    }

    /// y = M · x for a full-width x (`dimension` values): one `dgemv` over the dense
    /// columns, plus, for each non-zero of x in the block, that column's stored pairs.
    func product(_ x: [Double]) -> [Double] {
        precondition(x.count == dimension, "shape mismatch")
        guard rows > 0 else { return [] }
        let width = denseWidth
        var xDense = [Double](repeating: 0, count: width)
        for j in 0 ..< block.lowerBound { xDense[j] = x[j] }
        for j in block.upperBound ..< dimension { xDense[j - block.count] = x[j] }
        var y = [Double](repeating: 0, count: rows)
        dense.withUnsafeBufferPointer { a in
            xDense.withUnsafeBufferPointer { xBuffer in
                y.withUnsafeMutableBufferPointer { yBuffer in
                    BLASKernels.dgemv(rows: rows, columns: width, a: a, x: xBuffer, y: yBuffer)
                }
            }
        }
        for j in block where x[j] != 0 {
            for (row, value) in previous[j - block.lowerBound] { y[row] += x[j] * value }
        }
        return y
    }
}
