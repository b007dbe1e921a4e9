import Foundation
import LinearAlgebra

// MARK: - Per-group evidence

/// The feature groups whose log-likelihood terms add up to a profile score.
public enum ProfileGroup: Int, CaseIterable, Sendable {
    /// log(n_t + β): how often the target happens at all.
    case prior
    case timeOfDay
    /// Weekday and weekend together.
    case day
    case context
    case previous
}

extension ProfileModel {
    /// For each target (rows, index order) the log-score split by group
    /// (columns in `ProfileGroup` order); each row sums to `logScores(at:)`.
    /// One `dgemm` of the log-profile matrix with the moment vector masked per group.
    /// - Complexity: O(targets x width x groups).
    public func groupLogScores(at moment: Moment) -> [Double] {
        let rows = space.targetCount
        let groups = ProfileGroup.allCases.count
        guard rows > 0 else { return [] }
        let x = scoringVector(for: moment)
        let width = width
        var masked = [Double](repeating: 0, count: width * groups)
        for j in 0 ..< width { masked[j * groups + group(ofColumn: j).rawValue] = x[j] }
        var result = [Double](repeating: 0, count: rows * groups)
        logProfile.withUnsafeBufferPointer { a in
            masked.withUnsafeBufferPointer { b in
                result.withUnsafeMutableBufferPointer { c in
                    BLASKernels.dgemm(m: rows, n: groups, k: width, a: a, b: b, c: c)
                }
            }
        }
        return result
    }

    /// Which group a column of the log-profile matrix belongs to.
    func group(ofColumn j: Int) -> ProfileGroup {
        let layout = layout
        let dimension = layout.dimension
        if j == layout.bias { return .prior }
        if layout.time.contains(j) || j == dimension { return .timeOfDay }
        if layout.weekday.contains(j) || layout.weekend.contains(j) || j == dimension + 1 || j == dimension + 2 { return .day }
        if layout.previous.contains(j) || j == dimension + 3 { return .previous }
        return .context
    }

    /// Each column's contribution L[t, j] · x'[j] for one target at a moment (width values).
    public func columnContributions(target: TargetIndex, at moment: Moment) -> [Double] {
        let x = scoringVector(for: moment)
        let base = target.rawValue * width
        return x.indices.map { logProfile[base + $0] * x[$0] }
    }
}
