import Foundation
import LinearAlgebra

// MARK: - Design matrix

/// Encoded training events: one row per event (Float, row-major), its target and weight.
public struct DesignMatrix: Sendable {
    public let rows: Int
    public let columns: Int
    public var values: [Float]
    public var labels: [Int]
    public var weights: [Double]

    /// Encodes `log`'s events in order, each with the event before it as previous target.
    ///
    /// - Parameter halfLifeDays: when set, each row's weight is multiplied by
    ///   0.5^(age / half-life), the age measured from the newest event.
    public init(log: EventLog, space: FeatureSpace, encoder: MomentEncoder, halfLifeDays: Double?) {
        let layout = encoder.layout(for: space)
        rows = log.count
        columns = layout.dimension
        values = [Float](repeating: 0, count: rows * columns)
        labels = log.events.map(\.target.rawValue)
        let newest = log.last?.time ?? 0
        weights = log.events.map { event in
            guard let halfLifeDays else { return event.weight }
            return event.weight * Foundation.pow(0.5, (newest - event.time) / (halfLifeDays * 86_400))
        }
        var scratch = [Double](repeating: 0, count: columns)
        var previous: LoggedEvent?
        for (i, event) in log.events.enumerated() {
            scratch.withUnsafeMutableBufferPointer { buffer in
                encoder.encode(date: event.date, utcOffset: event.utcOffset, contextColumns: event.context,
                               previous: previous.map { ($0.target, $0.date) }, layout: layout, into: buffer)
            }
            let base = i * columns
            for j in 0 ..< columns where scratch[j] != 0 { values[base + j] = Float(scratch[j]) }
            previous = event
        }
    }
}

// MARK: - Objective

/// The L2-regularised multinomial log-loss and its gradient, with both
/// products done by single-precision `sgemm`:
///
///     F(W) = Σ_i w_i · (logΣ_t exp(x_i·W_t) − x_i·W_{y_i}) + (λ/2)·‖W without bias column‖²
///     ∇F   = (P − Y)ᵀ diag(w) X + λ·W (bias column unpenalised)
///
/// W is targets x columns, row-major. With λ = 1 this is scikit-learn's
/// objective for `LogisticRegression(C=1)` (sum of losses plus ½‖W‖²).
/// The value is accumulated in Double.
struct SoftmaxObjective {
    let design: DesignMatrix
    let targets: Int
    let l2: Double
    private var weightsFloat: [Float]
    private var logits: [Float]
    private var gradientFloat: [Float]

    init(design: DesignMatrix, targets: Int, l2: Double) {
        self.design = design
        self.targets = targets
        self.l2 = l2
        weightsFloat = [Float](repeating: 0, count: targets * design.columns)
        logits = [Float](repeating: 0, count: design.rows * targets)
        gradientFloat = [Float](repeating: 0, count: targets * design.columns)
    }

    /// F(W) with ∇F written to `gradient` (both targets x columns).
    mutating func evaluate(_ weights: [Double], gradient: inout [Double]) -> Double {
        let n = design.rows
        let d = design.columns
        let k = targets
        for i in weights.indices { weightsFloat[i] = Float(weights[i]) }
        design.values.withUnsafeBufferPointer { x in
            weightsFloat.withUnsafeBufferPointer { w in
                logits.withUnsafeMutableBufferPointer { z in
                    BLASKernels.sgemm(m: n, n: k, k: d, a: x, b: w, transposeB: true, c: z)
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
        design.values.withUnsafeBufferPointer { x in
            logits.withUnsafeBufferPointer { r in
                gradientFloat.withUnsafeMutableBufferPointer { g in
                    BLASKernels.sgemm(m: k, n: d, k: n, a: r, transposeA: true, b: x, c: g)
                }
            }
        }
        var penalty = 0.0
        for t in 0 ..< k {
            let base = t * d
            gradient[base] = Double(gradientFloat[base])
            for j in 1 ..< d {
                let w = weights[base + j]
                penalty += w * w
                gradient[base + j] = Double(gradientFloat[base + j]) + l2 * w
            }
        }
        return loss + 0.5 * l2 * penalty
    }
}
