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

    /// Recomputes the whole log-profile matrix. - Complexity: O(targets x (width - targets) + pairs) logarithms.
    mutating func refreshAll() {
        reference = currentReference
        decay = decayFactor()
        // A previous-target pair that never occurred has count 0: its entry is log(α), the block's absent value.
        logProfile = LogProfileMatrix(layout: layout, extraColumns: extraColumnCount,
                                      absentTransition: Foundation.log(configuration.smoothing))
        let columns = counts.denseColumns
        for row in 0 ..< space.targetCount { refresh(row: row, columns: columns, includingKeys: true) }
        let alpha = configuration.smoothing
        for (p, entries) in counts.previous.enumerated() {
            let column = counts.block.lowerBound + p
            for (row, count) in entries { logProfile[row, column] = Foundation.log(decay * count + alpha) }
        }
    }

    /// L after one target was added (no context value, same reference day and decay), equal to
    /// `refreshAll()` at O(targets) logarithms instead of O(targets x columns): the old rows keep
    /// their entries but the previous-group denominator (it counts the targets), the new row is
    /// computed. The caller then refreshes the entries its new counts touched.
    mutating func grownLogProfile(from old: LogProfileMatrix) {
        let layout = layout
        let alpha = configuration.smoothing
        logProfile = LogProfileMatrix(layout: layout, extraColumns: extraColumnCount,
                                      absentTransition: Foundation.log(alpha))
        logProfile.copyEntries(of: old)
        let denominator = layout.dimension + 3
        for row in 0 ..< old.rows {
            logProfile[row, denominator] = Foundation.log(decay * counts[row, layout.bias] + alpha * Double(layout.targetCount + 1))
        }
        let columns = counts.denseColumns
        for row in old.rows ..< space.targetCount { refresh(row: row, columns: columns, includingKeys: true) }
    }

    /// Recomputes the entries of `row` that depend on the count columns given,
    /// plus the bias entry and the context keys' denominators and "absent" entries.
    mutating func refresh(row: Int, columns: [Int], includingKeys: Bool = true) {
        let layout = layout
        let dimension = layout.dimension
        let alpha = configuration.smoothing
        let c = decay
        let total = c * counts[row, layout.bias]
        // Bias: the prior. Then the denominators of the four groups that sum to one per event.
        logProfile[row, layout.bias] = Foundation.log(total + configuration.priorSmoothing)
        logProfile[row, dimension] = Foundation.log(total + alpha * Double(layout.timeKernels))
        logProfile[row, dimension + 1] = Foundation.log(total + alpha * 7)
        logProfile[row, dimension + 2] = Foundation.log(total + alpha * 2)
        logProfile[row, dimension + 3] = Foundation.log(total + alpha * Double(layout.targetCount + 1))
        for j in columns where j != layout.bias {
            logProfile[row, j] = Foundation.log(c * counts[row, j] + alpha)
        }
        guard includingKeys else { return }
        let scaledTotal = counts[row, layout.bias]
        for (k, key) in space.contextKeys.enumerated() {
            let valueColumns = space.columnsByKey[key] ?? []
            var keyTotal = 0.0
            for column in valueColumns { keyTotal += counts[row, layout.column(of: column)] }
            let columns = keyColumns(key: k)
            let absentIsAValue = absenceIsAValue(ofKey: k)
            // Over every use when "absent" is a value, else over the uses with a value of the key.
            logProfile[row, columns.denominator] = absentIsAValue
                ? Foundation.log(total + alpha * Double(valueColumns.count + 1))
                : Foundation.log(c * keyTotal + alpha * Double(valueColumns.count))
            // The uses without a value of the key (never below zero, whatever the rounding of the sums).
            logProfile[row, columns.absent] = absentIsAValue ? Foundation.log(c * max(0, scaledTotal - keyTotal) + alpha) : 0
        }
    }

    // MARK: Inspection

    /// The smoothed probability of each bucket of a group for a target, e.g.
    /// the weekday distribution of target 0. Used by explanations and tests.
    package func bucketProbabilities(target: TargetIndex, columns: Range<Int>) -> [Double] {
        let alpha = configuration.smoothing
        let values = columns.map { decay * counts[target.rawValue, $0] }
        let total = values.reduce(0, +)
        return values.map { ($0 + alpha) / (total + alpha * Double(columns.count)) }
    }

    /// The decayed weight of a target's events (how much history backs it).
    package func decayedWeight(of target: TargetIndex) -> Double { decay * counts[target.rawValue, layout.bias] }
}
