import Foundation
@testable import ProactiveModels
import Testing

// MARK: - Fitting the blend weights on recent rows

@Suite("Blend weights")
struct BlendWeightsTests {
    /// 80 old rows where the chosen candidate has frecencyShort = 1, then 20 recent rows
    /// where it has frecencyLong = 1 instead (a changed habit); two candidates per row.
    static func changedHabitRows() -> BlendRows {
        var rows = BlendRows()
        let features = BlendFeature.count
        for row in 0 ..< 100 {
            let (chosen, other): (BlendFeature, BlendFeature) = row < 80 ? (.frecencyShort, .frecencyLong) : (.frecencyLong, .frecencyShort)
            var values = [Double](repeating: 0, count: 2 * features)
            values[chosen.rawValue] = 1
            values[features + other.rawValue] = 1
            rows.append(features: values, candidates: 2, label: 0, weights: [], maxRows: 1000, maxValues: 1_000_000)
        }
        return rows
    }

    /// A row of more candidates than `BlendRows.maxCandidates` keeps the label and the
    /// best-scored others (by the weights given), in index order, with the label's new position.
    @Test func wideRowsKeepTheLabelAndTheBestScored() {
        let features = BlendFeature.count
        let candidates = BlendRows.maxCandidates + 36
        var weights = [Double](repeating: 0, count: features)
        weights[BlendFeature.frecencyShort.rawValue] = 1
        // Candidate c scores c (so the best are the highest indices); the label, 3, scores low.
        var values = [Double](repeating: 0, count: candidates * features)
        for c in 0 ..< candidates { values[c * features + BlendFeature.frecencyShort.rawValue] = Double(c) }
        var rows = BlendRows()
        rows.append(features: values, candidates: candidates, label: 3, weights: weights, maxRows: 1000, maxValues: 1_000_000)
        #expect(rows.candidateCounts == [BlendRows.maxCandidates])
        #expect(rows.labels == [0])
        let kept = (0 ..< BlendRows.maxCandidates).map { Int(rows.values[$0 * features + BlendFeature.frecencyShort.rawValue]) }
        #expect(kept == [3] + Array(candidates - BlendRows.maxCandidates + 1 ..< candidates))
        // A row within the limit is kept whole.
        rows.append(features: Array(values.prefix(10 * features)), candidates: 10, label: 7, weights: weights, maxRows: 1000, maxValues: 1_000_000)
        #expect(rows.candidateCounts == [BlendRows.maxCandidates, 10] && rows.labels == [0, 7])
    }

    @Test func equalRowsFollowTheMajority() {
        let zeros = [Double](repeating: 0, count: BlendFeature.count)
        let weights = Self.changedHabitRows().fitWeights(start: zeros, prior: zeros, l2: 1)
        #expect(weights[BlendFeature.frecencyShort.rawValue] > weights[BlendFeature.frecencyLong.rawValue])
    }

    @Test func recentRowsOutweighOldOnesWithAShortRowHalfLife() {
        let zeros = [Double](repeating: 0, count: BlendFeature.count)
        let weights = Self.changedHabitRows().fitWeights(start: zeros, prior: zeros, l2: 1, rowHalfLife: 5)
        #expect(weights[BlendFeature.frecencyLong.rawValue] > weights[BlendFeature.frecencyShort.rawValue] + 0.5)
    }

    @Test func rowHalfLifeIsValidatedAndSaved() throws {
        var configuration = BlendConfiguration()
        #expect(configuration.rowHalfLife == 50)
        configuration.rowHalfLife = 0
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.rowHalfLife = nil
        var writer = ByteWriter()
        configuration.encode(into: &writer)
        var reader = ByteReader(writer.bytes)
        #expect(try BlendConfiguration(reader: &reader) == configuration)
    }
}
