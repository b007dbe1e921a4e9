import Foundation

// MARK: - Per-group evidence

/// The feature groups whose log-likelihood terms add up to a profile score.
package enum ProfileGroup: Int, CaseIterable, Sendable {
    /// log(n_t + β): how often the target happens at all.
    case prior
    case timeOfDay
    /// Weekday and weekend together.
    case day
    /// The context keys' values the moment has (`focus=work`, `place=home`).
    case context
    case previous
    /// The state keys the moment has no value of, where that is a value (no Focus):
    /// log P(absent | target) (`ProfileModel.stateKeys`).
    case absence
}

extension ProfileModel {
    /// For each target (rows, index order) the log-score split by group
    /// (columns in `ProfileGroup` order); each row sums to `logScores(at:)` up to
    /// rounding. One weighted sum of L's columns per group (the transition row
    /// in the `previous` group), each reading only that group's columns.
    /// - Complexity: O(targets x (dense width)) over all groups.
    package func groupLogScores(at moment: Moment) -> [Double] {
        let rows = space.targetCount
        let groups = ProfileGroup.allCases.count
        guard rows > 0 else { return [] }
        let input = scoringInput(for: moment)
        var positions = [[Int]](repeating: [], count: groups)
        for (p, j) in logProfile.denseColumns.enumerated() { positions[group(ofColumn: j, at: moment).rawValue].append(p) }
        var result = [Double](repeating: 0, count: rows * groups)
        var scratch = [Double](repeating: 0, count: rows)
        input.dense.withUnsafeBufferPointer { x in
            scratch.withUnsafeMutableBufferPointer { y in
                for group in ProfileGroup.allCases {
                    logProfile.multiply(weights: x, positions: positions[group.rawValue],
                                        previous: group == .previous ? input.previous : nil, into: y)
                    for t in 0 ..< rows { result[t * groups + group.rawValue] = y[t] }
                }
            }
        }
        return result
    }

    /// Which group a column of the log-profile matrix belongs to at `moment`: a context key's
    /// denominator is the `absence` group's where the moment reads the key's "absent" value, else
    /// the `context` group's.
    func group(ofColumn j: Int, at moment: Moment) -> ProfileGroup {
        let layout = layout
        let dimension = layout.dimension
        if j == layout.bias { return .prior }
        if layout.time.contains(j) || j == dimension { return .timeOfDay }
        if layout.weekday.contains(j) || layout.weekend.contains(j) || j == dimension + 1 || j == dimension + 2 { return .day }
        if layout.previous.contains(j) || j == dimension + 3 { return .previous }
        let keys = space.contextKeys.count
        let firstKey = dimension + Self.fixedGroupCount
        if j >= firstKey + keys { return .absence }
        if j >= firstKey, readsAbsence(ofKey: j - firstKey, at: moment) { return .absence }
        return .context
    }

    /// Each column's contribution L[t, j] · x'[j] for one target at a moment (width values).
    package func columnContributions(target: TargetIndex, at moment: Moment) -> [Double] {
        let x = scoringVector(for: moment)
        return x.indices.map { logProfile[target.rawValue, $0] * x[$0] }
    }
}
