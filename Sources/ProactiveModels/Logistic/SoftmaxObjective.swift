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
    public let previousBlock: Range<Int>
    /// Each row's columns outside the previous-target block, in column order.
    public var dense: [Float]
    /// Per row, the previous target's offset in the block and its weight (-1 and 0 when none).
    public var previousOffset: [Int32]
    public var previousWeight: [Float]
    public var labels: [Int]
    public var weights: [Double]

    /// Columns outside the previous-target block.
    public var denseColumns: Int { columns - previousBlock.count }

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

/// The L2-regularised multinomial log-loss and its gradient:
///
///     F(W) = Σ_i w_i · (logΣ_t exp(x_i·W_t) − x_i·W_{y_i}) + (λ/2)·‖W without bias column‖²
///     ∇F   = (P − Y)ᵀ diag(w) X + λ·W (bias column unpenalised)
///
/// W is targets x columns, row-major. With λ = 1 this is scikit-learn's
/// objective for `LogisticRegression(C=1)` (sum of losses plus ½‖W‖²).
/// Both products run in single precision: `sgemm` over the dense columns,
/// plus each row's one previous-target entry (an axpy of that column of W,
/// kept transposed so it is contiguous, into the row's logits; and of the
/// row's residuals into that column's gradient). The value is accumulated in Double.
struct SoftmaxObjective {
    let design: DesignMatrix
    let targets: Int
    let l2: Double
    /// W's dense columns (targets x dense columns) and its previous-target block transposed (block x targets).
    private var denseWeights: [Float]
    private var previousWeights: [Float]
    private var logits: [Float]
    private var denseGradient: [Float]
    private var previousGradient: [Float]

    init(design: DesignMatrix, targets: Int, l2: Double) {
        self.design = design
        self.targets = targets
        self.l2 = l2
        denseWeights = [Float](repeating: 0, count: targets * design.denseColumns)
        previousWeights = [Float](repeating: 0, count: design.previousBlock.count * targets)
        logits = [Float](repeating: 0, count: design.rows * targets)
        denseGradient = [Float](repeating: 0, count: targets * design.denseColumns)
        previousGradient = [Float](repeating: 0, count: design.previousBlock.count * targets)
    }

    /// F(W) with ∇F written to `gradient` (both targets x columns).
    mutating func evaluate(_ weights: [Double], gradient: inout [Double]) -> Double {
        let n = design.rows
        let d = design.columns
        let dd = design.denseColumns
        let block = design.previousBlock
        let k = targets
        for t in 0 ..< k {
            let base = t * d
            for j in 0 ..< block.lowerBound { denseWeights[t * dd + j] = Float(weights[base + j]) }
            for j in block.upperBound ..< d { denseWeights[t * dd + j - block.count] = Float(weights[base + j]) }
            for (p, j) in block.enumerated() { previousWeights[p * k + t] = Float(weights[base + j]) }
        }
        design.dense.withUnsafeBufferPointer { x in
            denseWeights.withUnsafeBufferPointer { w in
                logits.withUnsafeMutableBufferPointer { z in
                    BLASKernels.sgemm(m: n, n: k, k: dd, a: x, b: w, transposeB: true, c: z)
                    previousWeights.withUnsafeBufferPointer { wp in
                        for i in 0 ..< n where design.previousOffset[i] >= 0 {
                            Self.addScaled(design.previousWeight[i], wp.baseAddress! + Int(design.previousOffset[i]) * k,
                                           into: z.baseAddress! + i * k, count: k)
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
                previousGradient.withUnsafeMutableBufferPointer { gp in
                    for j in gp.indices { gp[j] = 0 }
                    for i in 0 ..< n where design.previousOffset[i] >= 0 {
                        Self.addScaled(design.previousWeight[i], r.baseAddress! + i * k,
                                       into: gp.baseAddress! + Int(design.previousOffset[i]) * k, count: k)
                    }
                }
            }
        }
        // Back to targets x columns, plus the penalty (column 0, the bias, is not penalised).
        var penalty = 0.0
        for t in 0 ..< k {
            let base = t * d
            for j in 0 ..< block.lowerBound { gradient[base + j] = Double(denseGradient[t * dd + j]) }
            for j in block.upperBound ..< d { gradient[base + j] = Double(denseGradient[t * dd + j - block.count]) }
            for (p, j) in block.enumerated() { gradient[base + j] = Double(previousGradient[p * k + t]) }
            for j in 1 ..< d {
                let w = weights[base + j]
                penalty += w * w
                gradient[base + j] += l2 * w
            }
        }
        return loss + 0.5 * l2 * penalty
    }

    /// y += alpha · x over `count` floats: a plain loop the compiler vectorises. A BLAS
    /// `saxpy` call per row cost more than the work for a user with a few dozen targets,
    /// and the objective makes two per row and evaluation.
    @inline(__always)
    private static func addScaled(_ alpha: Float, _ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, count: Int) {
        for t in 0 ..< count { y[t] += alpha * x[t] }
    }
}
