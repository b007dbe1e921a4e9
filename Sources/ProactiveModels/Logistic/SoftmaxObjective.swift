import Foundation
import LinearAlgebra

// MARK: - Design matrix

/// Encoded training events: one row per event, its target and weight.
///
/// The previous-target block (one column per target) holds at most one
/// non-zero per row, so a row is stored as its dense part (every other
/// column, Float, row-major) plus that one entry. The products then cost
/// rows x targets x (about 50 dense columns) instead of x (50 + targets):
/// 16x fewer multiplications for a user with 760 targets.
public struct DesignMatrix: Sendable {
    public let rows: Int
    /// The full row width (`FeatureLayout.dimension`).
    public let columns: Int
    /// The previous-target block (`FeatureLayout.previous` without its "none" column).
    package let previousBlock: Range<Int>
    /// Each row's columns outside the previous-target block, in column order.
    package var dense: [Float]
    /// Per row, the previous target's offset in the block and its weight (-1 and 0 when none).
    package var previousOffset: [Int32]
    package var previousWeight: [Float]
    public var labels: [Int]
    public var weights: [Double]

    /// Columns outside the previous-target block.
    package var denseColumns: Int { columns - previousBlock.count }

    /// Encodes `log`'s events in order, each with the event before it as previous target.
    ///
    /// - Parameter halfLifeDays: when set, each row's weight is multiplied by
    ///   0.5^(age / half-life), the age measured from the newest event.
    public init(log: EventLog, space: FeatureSpace, encoder: MomentEncoder, halfLifeDays: Double?) {
        let layout = encoder.layout(for: space)
        rows = log.count
        columns = layout.dimension
        previousBlock = layout.previous.lowerBound ..< layout.noPrevious
        let denseWidth = columns - previousBlock.count
        dense = [Float](repeating: 0, count: rows * denseWidth)
        previousOffset = [Int32](repeating: -1, count: rows)
        previousWeight = [Float](repeating: 0, count: rows)
        let events = log.events
        labels = events.map(\.target.rawValue)
        let newest = log.last?.time ?? 0
        weights = events.map { event in
            guard let halfLifeDays else { return event.weight }
            return event.weight * Foundation.pow(0.5, (newest - event.time) / (halfLifeDays * 86_400))
        }
        var scratch = [Double](repeating: 0, count: columns)
        var previous: LoggedEvent?
        let block = previousBlock
        for (i, event) in events.enumerated() {
            scratch.withUnsafeMutableBufferPointer { buffer in
                encoder.encode(date: event.date, utcOffset: event.utcOffset, contextColumns: event.context,
                               previous: previous.map { ($0.target, $0.date) }, layout: layout, into: buffer)
            }
            let base = i * denseWidth
            for j in 0 ..< block.lowerBound where scratch[j] != 0 { dense[base + j] = Float(scratch[j]) }
            for j in block.upperBound ..< columns where scratch[j] != 0 { dense[base + j - block.count] = Float(scratch[j]) }
            for j in block where scratch[j] != 0 {
                previousOffset[i] = Int32(j - block.lowerBound)
                previousWeight[i] = Float(scratch[j])
            }
            previous = event
        }
    }

    /// Row `i` at full width (for inspection and tests).
    public func row(_ i: Int) -> [Float] {
        let width = denseColumns
        var x = [Float](repeating: 0, count: columns)
        for j in 0 ..< width { x[j < previousBlock.lowerBound ? j : j + previousBlock.count] = dense[i * width + j] }
        if previousOffset[i] >= 0 { x[previousBlock.lowerBound + Int(previousOffset[i])] = previousWeight[i] }
        return x
    }
}

// MARK: - Objective

/// The pairs (target t, previous target p) of a design that occur: some row of
/// target t has previous target p. The logistic model learns a previous-target
/// weight W[t, p] only for these (at most one per row: O(events), where the
/// full block is targets x targets); every other entry of the block is 0.
/// Grouped by previous target, targets increasing within a group.
struct PreviousPairs: Sendable, Equatable {
    /// Pairs of previous target p: `targets[start[p] ..< start[p + 1]]`.
    let start: [Int]
    let targets: [Int32]

    var count: Int { targets.count }

    init(design: DesignMatrix) {
        let block = design.previousBlock.count
        var sets = [Set<Int32>](repeating: [], count: block)
        for i in 0 ..< design.rows where design.previousOffset[i] >= 0 {
            sets[Int(design.previousOffset[i])].insert(Int32(design.labels[i]))
        }
        var start = [0]
        start.reserveCapacity(block + 1)
        var targets: [Int32] = []
        for p in 0 ..< block {
            targets += sets[p].sorted()
            start.append(targets.count)
        }
        self.start = start
        self.targets = targets
    }

    /// Every pair of a block of `block` previous targets and `targets` targets (a dense block).
    init(every block: Int, targets: Int) {
        start = (0 ... block).map { $0 * targets }
        self.targets = (0 ..< block).flatMap { _ in (0 ..< Int32(targets)) }
    }

    /// The pairs' values of `weights` (absent entries 0), in pair order.
    func values(of weights: SparseBlockMatrix) -> [Double] {
        var values = [Double](repeating: 0, count: count)
        for p in 0 ..< start.count - 1 {
            for q in start[p] ..< start[p + 1] { values[q] = weights.previous[p][Int(targets[q])] ?? 0 }
        }
        return values
    }
}

/// The L2-regularised multinomial log-loss and its gradient:
///
///     F(W) = Σ_i w_i · (logΣ_t exp(x_i·W_t) − x_i·W_{y_i}) + (λ/2)·‖W without bias column‖²
///     ∇F   = (P − Y)ᵀ diag(w) X + λ·W (bias column unpenalised)
///
/// over W's dense columns (targets x dense columns) and its previous-target
/// entries of the pairs that occur (`PreviousPairs`; the rest of the block is
/// held at 0). The parameter vector is W's dense part, row-major, then the
/// pairs' weights in pair order. With λ = 1 this is scikit-learn's objective
/// for `LogisticRegression(C=1)` (sum of losses plus ½‖W‖²) restricted to
/// those entries. Both products run in single precision: `sgemm` over the
/// dense columns, plus each row's previous-target entry (the weights of its
/// previous target's pairs added to the row's logits; the row's residuals at
/// those targets into their gradients). The value is accumulated in Double.
struct SoftmaxObjective {
    let design: DesignMatrix
    let targets: Int
    let l2: Double
    let pairs: PreviousPairs
    private var denseWeights: [Float]
    private var pairWeights: [Float]
    private var logits: [Float]
    private var denseGradient: [Float]
    private var pairGradient: [Float]

    /// Parameters: targets x dense columns, then one per pair.
    var parameterCount: Int { targets * design.denseColumns + pairs.count }

    init(design: DesignMatrix, targets: Int, l2: Double, pairs: PreviousPairs) {
        self.design = design
        self.targets = targets
        self.l2 = l2
        self.pairs = pairs
        denseWeights = [Float](repeating: 0, count: targets * design.denseColumns)
        pairWeights = [Float](repeating: 0, count: pairs.count)
        logits = [Float](repeating: 0, count: design.rows * targets)
        denseGradient = [Float](repeating: 0, count: targets * design.denseColumns)
        pairGradient = [Float](repeating: 0, count: pairs.count)
    }

    /// F at `parameters` with ∇F written to `gradient` (both `parameterCount` values).
    mutating func evaluate(_ parameters: [Double], gradient: inout [Double]) -> Double {
        let n = design.rows
        let dd = design.denseColumns
        let k = targets
        let denseCount = k * dd
        for i in 0 ..< denseCount { denseWeights[i] = Float(parameters[i]) }
        for q in 0 ..< pairs.count { pairWeights[q] = Float(parameters[denseCount + q]) }
        let design = design
        let pairs = pairs
        design.dense.withUnsafeBufferPointer { x in
            denseWeights.withUnsafeBufferPointer { w in
                logits.withUnsafeMutableBufferPointer { z in
                    BLASKernels.sgemm(m: n, n: k, k: dd, a: x, b: w, transposeB: true, c: z)
                    pairWeights.withUnsafeBufferPointer { pw in
                        Self.forEachPreviousRow(design, pairs) { i, weight, range, targets in
                            let row = z.baseAddress! + i * k
                            for q in range { row[Int(targets[q])] += weight * pw[q] }
                        }
                    }
                }
            }
        }
        var loss = 0.0
        logits.withUnsafeMutableBufferPointer { z in
            for i in 0 ..< n {
                let base = i * k
                var maximum = -Float.infinity
                for t in 0 ..< k { maximum = max(maximum, z[base + t]) }
                var total: Float = 0
                for t in 0 ..< k {
                    let e = Foundation.exp(z[base + t] - maximum)
                    z[base + t] = e
                    total += e
                }
                let label = design.labels[i]
                let weight = design.weights[i]
                let probability = Double(z[base + label] / total)
                loss -= weight * Foundation.log(max(probability, 1e-300))
                let scale = Float(weight) / total
                for t in 0 ..< k { z[base + t] *= scale }
                z[base + label] -= Float(weight)
            }
        }
        design.dense.withUnsafeBufferPointer { x in
            logits.withUnsafeBufferPointer { r in
                denseGradient.withUnsafeMutableBufferPointer { g in
                    BLASKernels.sgemm(m: k, n: dd, k: n, a: r, transposeA: true, b: x, c: g)
                }
                pairGradient.withUnsafeMutableBufferPointer { pg in
                    for q in pg.indices { pg[q] = 0 }
                    Self.forEachPreviousRow(design, pairs) { i, weight, range, targets in
                        let row = r.baseAddress! + i * k
                        for q in range { pg[q] += weight * row[Int(targets[q])] }
                    }
                }
            }
        }
        // The penalty on every parameter but the bias (dense column 0 of each target).
        var penalty = 0.0
        for t in 0 ..< k {
            let base = t * dd
            gradient[base] = Double(denseGradient[base])
            for j in 1 ..< dd {
                let w = parameters[base + j]
                penalty += w * w
                gradient[base + j] = Double(denseGradient[base + j]) + l2 * w
            }
        }
        for q in 0 ..< pairs.count {
            let w = parameters[denseCount + q]
            penalty += w * w
            gradient[denseCount + q] = Double(pairGradient[q]) + l2 * w
        }
        return loss + 0.5 * l2 * penalty
    }

    /// Calls `body` for each row with a previous target: the row, its previous-target value,
    /// that target's pair range and the pairs' targets (buffers, so the loops run unchecked).
    @inline(__always)
    private static func forEachPreviousRow(_ design: DesignMatrix, _ pairs: PreviousPairs,
                                           _ body: (Int, Float, Range<Int>, UnsafeBufferPointer<Int32>) -> Void) {
        design.previousOffset.withUnsafeBufferPointer { offsets in
            design.previousWeight.withUnsafeBufferPointer { weights in
                pairs.start.withUnsafeBufferPointer { start in
                    pairs.targets.withUnsafeBufferPointer { targets in
                        for i in 0 ..< offsets.count where offsets[i] >= 0 {
                            let p = Int(offsets[i])
                            body(i, weights[i], start[p] ..< start[p + 1], targets)
                        }
                    }
                }
            }
        }
    }
}
