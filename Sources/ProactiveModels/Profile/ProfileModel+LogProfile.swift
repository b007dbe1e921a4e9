import Foundation

// MARK: - The log-profile matrix

extension ProfileModel {
    /// The UTC day start of the latest event: counts are decayed to it when L is built.
    var currentReference: Double {
        guard let last = log.last else { return 0 }
        return (last.time / 86_400).rounded(.down) * 86_400
    }

    /// Updates the decay reference. - Returns: `true` when it did not change
    /// (then only touched entries of L need refreshing).
    mutating func refreshReference() -> Bool {
        let newReference = currentReference
        if newReference == reference, logProfile.rows == space.targetCount, logProfile.width == width { return true }
        reference = newReference
        return false
    }

    /// The factor turning stored counts into counts decayed to the reference day.
    func decayFactor() -> Double {
        guard configuration.halfLifeDays != nil else { return 1 }
        return Foundation.exp2(anchor - reference / halfLifeSeconds)
    }

    /// Recomputes the whole log-profile matrix. - Complexity: O(targets x width) logarithms.
    mutating func refreshAll() {
        reference = currentReference
        decay = decayFactor()
        logProfile = LogProfileMatrix(layout: layout, extraColumns: Self.fixedGroupCount + space.contextKeys.count)
        let allColumns = Array(0 ..< layout.dimension)
        for row in 0 ..< space.targetCount { refresh(row: row, columns: allColumns, includingKeys: true) }
    }

    /// Recomputes the entries of `row` that depend on the count columns given,
    /// plus the bias entry and the context-key denominators.
    mutating func refresh(row: Int, columns: [Int], includingKeys: Bool = true) {
        let layout = layout
        let dimension = layout.dimension
        let alpha = configuration.smoothing
        let c = decay
        let base = row * dimension
        let total = c * counts[base]
        // Bias: the prior. Then the denominators of the four groups that sum to one per event.
        logProfile[row, layout.bias] = Foundation.log(total + configuration.priorSmoothing)
        logProfile[row, dimension] = Foundation.log(total + alpha * Double(layout.timeKernels))
        logProfile[row, dimension + 1] = Foundation.log(total + alpha * 7)
        logProfile[row, dimension + 2] = Foundation.log(total + alpha * 2)
        logProfile[row, dimension + 3] = Foundation.log(total + alpha * Double(layout.targetCount + 1))
        for j in columns where j != layout.bias {
            logProfile[row, j] = Foundation.log(c * counts[base + j] + alpha)
        }
        guard includingKeys else { return }
        for (k, key) in space.contextKeys.enumerated() {
            let valueColumns = space.columnsByKey[key] ?? []
            var keyTotal = 0.0
            for column in valueColumns { keyTotal += counts[base + layout.column(of: column)] }
            logProfile[row, dimension + Self.fixedGroupCount + k] = Foundation.log(c * keyTotal + alpha * Double(valueColumns.count))
        }
    }

    // MARK: Inspection

    /// The smoothed probability of each bucket of a group for a target, e.g.
    /// the weekday distribution of target 0. Used by explanations and tests.
    public func bucketProbabilities(target: TargetIndex, columns: Range<Int>) -> [Double] {
        let dimension = layout.dimension
        let alpha = configuration.smoothing
        let base = target.rawValue * dimension
        let values = columns.map { decay * counts[base + $0] }
        let total = values.reduce(0, +)
        return values.map { ($0 + alpha) / (total + alpha * Double(columns.count)) }
    }

    /// The decayed weight of a target's events (how much history backs it).
    public func decayedWeight(of target: TargetIndex) -> Double { decay * counts[target.rawValue * layout.dimension] }
}
