import Foundation

// MARK: - L-BFGS

/// Limited-memory BFGS minimiser for smooth convex objectives (deterministic).
///
/// Two-loop recursion over the last `memory` (s, y) pairs, backtracking
/// Armijo line search starting at a unit step (scaled on the first iteration),
/// pairs with non-positive curvature skipped.
///
/// ```swift
/// let result = LBFGS().minimize(start: [0, 0]) { x, g in
///     g[0] = 2 * (x[0] - 1); g[1] = 2 * (x[1] + 2)
///     return (x[0] - 1) * (x[0] - 1) + (x[1] + 2) * (x[1] + 2)
/// }   // result.x ≈ [1, -2]
/// ```
struct LBFGS: Sendable, Hashable {
    var memory: Int
    var maxIterations: Int
    /// Stop when max |gradient| falls below this.
    var gradientTolerance: Double
    /// Stop when an iteration lowers f by less than this fraction of |f|.
    var relativeDecrease: Double

    init(memory: Int = 10, maxIterations: Int = 200, gradientTolerance: Double = 1e-5, relativeDecrease: Double = 1e-10) {
        self.memory = memory
        self.maxIterations = maxIterations
        self.gradientTolerance = gradientTolerance
        self.relativeDecrease = relativeDecrease
    }

    /// Why the minimiser stopped.
    enum Stop: String, Sendable {
        case gradient, decrease, iterations, lineSearch
    }

    struct Result: Sendable {
        var x: [Double]
        var value: Double
        var iterations: Int
        var evaluations: Int
        var stop: Stop
    }

    /// Minimises f from `start`. `objective(x, &gradient)` returns f(x) and writes ∇f(x).
    /// - Complexity: per iteration one or more objective evaluations plus O(memory · n).
    func minimize(start: [Double], objective: (_ x: [Double], _ gradient: inout [Double]) -> Double) -> Result {
        let n = start.count
        var x = start
        var gradient = [Double](repeating: 0, count: n)
        var value = objective(x, &gradient)
        var evaluations = 1
        var pairsS: [[Double]] = []
        var pairsY: [[Double]] = []
        var rhos: [Double] = []
        guard n > 0 else { return Result(x: x, value: value, iterations: 0, evaluations: 1, stop: .gradient) }
        for iteration in 0 ..< maxIterations {
            if Self.maxAbs(gradient) <= gradientTolerance {
                return Result(x: x, value: value, iterations: iteration, evaluations: evaluations, stop: .gradient)
            }
            var direction = twoLoop(gradient: gradient, s: pairsS, y: pairsY, rho: rhos)
            var slope = Self.dot(direction, gradient)
            if !(slope < 0) {
                direction = gradient.map { -$0 }
                slope = Self.dot(direction, gradient)
                pairsS.removeAll()
                pairsY.removeAll()
                rhos.removeAll()
            }
            var step = pairsS.isEmpty ? min(1, 1 / max(Self.norm(gradient), 1e-300)) : 1
            var candidate = x
            var candidateGradient = gradient
            var candidateValue = value
            var accepted = false
            for _ in 0 ..< 40 {
                for i in 0 ..< n { candidate[i] = x[i] + step * direction[i] }
                candidateValue = objective(candidate, &candidateGradient)
                evaluations += 1
                if candidateValue.isFinite, candidateValue <= value + 1e-4 * step * slope {
                    accepted = true
                    break
                }
                step *= 0.5
            }
            guard accepted else {
                return Result(x: x, value: value, iterations: iteration, evaluations: evaluations, stop: .lineSearch)
            }
            var s = [Double](repeating: 0, count: n)
            var y = [Double](repeating: 0, count: n)
            for i in 0 ..< n {
                s[i] = candidate[i] - x[i]
                y[i] = candidateGradient[i] - gradient[i]
            }
            let curvature = Self.dot(s, y)
            if curvature > 1e-12 * Self.dot(y, y) {
                pairsS.append(s)
                pairsY.append(y)
                rhos.append(1 / curvature)
                if pairsS.count > memory {
                    pairsS.removeFirst()
                    pairsY.removeFirst()
                    rhos.removeFirst()
                }
            }
            let decrease = value - candidateValue
            x = candidate
            gradient = candidateGradient
            value = candidateValue
            if decrease <= relativeDecrease * max(1, abs(value)) {
                return Result(x: x, value: value, iterations: iteration + 1, evaluations: evaluations, stop: .decrease)
            }
        }
        return Result(x: x, value: value, iterations: maxIterations, evaluations: evaluations, stop: .iterations)
    }

    /// −H·g by the two-loop recursion (H scaled by sᵀy / yᵀy of the newest pair).
    private func twoLoop(gradient: [Double], s: [[Double]], y: [[Double]], rho: [Double]) -> [Double] {
        // Through buffer pointers: the same operations in the same order as indexing the arrays (so the same
        // result to the bit), without a uniqueness check and bounds checks per element (the inner loops vectorise).
        var q = gradient
        var alphas = [Double](repeating: 0, count: s.count)
        q.withUnsafeMutableBufferPointer { q in
            for k in stride(from: s.count - 1, through: 0, by: -1) {
                let alpha = rho[k] * s[k].withUnsafeBufferPointer { Self.dot($0, UnsafeBufferPointer(q)) }
                alphas[k] = alpha
                y[k].withUnsafeBufferPointer { yk in
                    for i in 0 ..< q.count { q[i] -= alpha * yk[i] }
                }
            }
            if let lastS = s.last, let lastY = y.last {
                let gamma = Self.dot(lastS, lastY) / Self.dot(lastY, lastY)
                for i in 0 ..< q.count { q[i] *= gamma }
            }
            for k in 0 ..< s.count {
                let beta = rho[k] * y[k].withUnsafeBufferPointer { Self.dot($0, UnsafeBufferPointer(q)) }
                let scale = alphas[k] - beta
                s[k].withUnsafeBufferPointer { sk in
                    for i in 0 ..< q.count { q[i] += scale * sk[i] }
                }
            }
        }
        return q.map { -$0 }
    }

    static func dot(_ a: [Double], _ b: [Double]) -> Double {
        a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in dot(a, b) } }
    }

    /// Σ a[i]·b[i] in index order (the order fixes the rounding).
    static func dot(_ a: UnsafeBufferPointer<Double>, _ b: UnsafeBufferPointer<Double>) -> Double {
        precondition(a.count == b.count, "dot of vectors of different lengths")
        var total = 0.0
        for i in 0 ..< a.count { total += a[i] * b[i] }
        return total
    }

    static func norm(_ a: [Double]) -> Double { dot(a, a).squareRoot() }

    static func maxAbs(_ a: [Double]) -> Double { a.reduce(0) { max($0, abs($1)) } }
}
