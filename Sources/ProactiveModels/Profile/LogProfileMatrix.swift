import Foundation
import LinearAlgebra

// MARK: - Log-profile storage

/// The profile model's log-profile matrix L (targets x `width` logical
/// columns), stored in two parts laid out for scoring:
///
/// - `dense`: targets x `denseWidth`, row-major, holding every column except
///   the previous-target block: bias, time kernels, weekday, weekend, context
///   values, "no previous", then the group and context-key denominators. A
///   moment's vector is dense there, so scoring it is one `dgemv` over a
///   compact matrix (about 60 columns whatever the number of targets).
/// - `transitions`: targets x targets, row `p` holding column "previous = p"
///   of L for every target. A moment has at most one previous target, so its
///   contribution is one contiguous row added with `daxpy`, instead of a
///   strided read down a column of a targets x (targets + 60) matrix.
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
    private(set) var dense: [Double]
    private(set) var transitions: [Double]
    /// Dense storage position of each logical column, or -1 for the previous-target block.
    private let densePosition: [Int]

    var denseWidth: Int { denseColumns.count }

    /// An all-zero matrix for `layout` with `extraColumns` columns after the feature vector.
    init(layout: FeatureLayout, extraColumns: Int) {
        rows = layout.targetCount
        width = layout.dimension + extraColumns
        previousColumns = layout.previous.lowerBound ..< layout.noPrevious
        denseColumns = Array(0 ..< previousColumns.lowerBound) + Array(previousColumns.upperBound ..< width)
        var position = [Int](repeating: -1, count: width)
        for (p, j) in denseColumns.enumerated() { position[j] = p }
        densePosition = position
        dense = [Double](repeating: 0, count: rows * denseColumns.count)
        transitions = [Double](repeating: 0, count: rows * previousColumns.count)
    }

    /// L[row, column] for a logical column.
    subscript(row: Int, column: Int) -> Double {
        get {
            let p = densePosition[column]
            return p >= 0 ? dense[row * denseWidth + p] : transitions[(column - previousColumns.lowerBound) * rows + row]
        }
        set {
            let p = densePosition[column]
            if p >= 0 {
                dense[row * denseWidth + p] = newValue
            } else {
                transitions[(column - previousColumns.lowerBound) * rows + row] = newValue
            }
        }
    }

    // MARK: Products

    /// A moment's previous target (its index) and that column's value in x'.
    typealias PreviousTarget = (target: Int, weight: Double)

    /// y = L · x' for one moment given by its dense part and its previous target, if any.
    /// - Complexity: one `dgemv` of rows x denseWidth plus one `daxpy` of `rows`.
    func multiply(dense x: [Double], previous: PreviousTarget?, into y: UnsafeMutableBufferPointer<Double>) {
        precondition(x.count == denseWidth && y.count >= rows, "shape mismatch")
        guard rows > 0 else { return }
        dense.withUnsafeBufferPointer { a in
            x.withUnsafeBufferPointer { xBuffer in
                BLASKernels.dgemv(rows: rows, columns: denseWidth, a: a, x: xBuffer, y: y)
            }
        }
        addTransition(previous, into: y)
    }

    /// y += weight · (row `target` of the transition block): the previous target's
    /// column of L for every target, contiguous.
    func addTransition(_ previous: PreviousTarget?, into y: UnsafeMutableBufferPointer<Double>) {
        guard let (target, weight) = previous, weight != 0 else { return }
        transitions.withUnsafeBufferPointer { t in
            BLASKernels.daxpy(count: rows, alpha: weight, x: UnsafeBufferPointer(rebasing: t[target * rows ..< (target + 1) * rows]), y: y)
        }
    }

    /// C (rows x n) = dense part (rows x denseWidth) · B (denseWidth x n, row-major).
    func multiplyDense(by b: [Double], columns n: Int, into c: UnsafeMutableBufferPointer<Double>) {
        precondition(b.count == denseWidth * n && c.count >= rows * n, "shape mismatch")
        guard rows > 0, n > 0 else { return }
        dense.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { bBuffer in
                BLASKernels.dgemm(m: rows, n: n, k: denseWidth, a: a, b: bBuffer, c: c)
            }
        }
    }

    /// C (m x rows) = X_dense (m x denseWidth) · dense part ᵀ, for stacked dense vectors.
    func multiplyDense(stacked x: [Double], count m: Int, into c: UnsafeMutableBufferPointer<Double>) {
        precondition(x.count == m * denseWidth && c.count >= m * rows, "shape mismatch")
        guard rows > 0, m > 0 else { return }
        x.withUnsafeBufferPointer { b in
            dense.withUnsafeBufferPointer { a in
                BLASKernels.dgemm(m: m, n: rows, k: denseWidth, a: b, b: a, transposeB: true, c: c)
            }
        }
    }

    /// Σ over targets of L[·, column] (used for per-column means).
    func columnSum(_ column: Int) -> Double {
        var total = 0.0
        for t in 0 ..< rows { total += self[t, column] }
        return total
    }
}
