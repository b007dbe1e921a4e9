import Foundation
import ProactiveCore
@testable import ProactiveModels
import Testing

@Suite("Feature space and encoders")
struct EncoderTests {
    static func cosine(_ a: [Double], _ b: [Double]) -> Double {
        let dot = zip(a, b).reduce(0) { $0 + $1.0 * $1.1 }
        let norms = (a.reduce(0) { $0 + $1 * $1 } * b.reduce(0) { $0 + $1 * $1 }).squareRoot()
        return dot / norms
    }

    @Test func timeOfDayIsCyclic() {
        let encoder = MomentEncoder()
        let k = { (minute: Double) in encoder.timeKernelWeights(minuteOfDay: minute) }
        #expect(Self.cosine(k(7 * 60 + 55), k(8 * 60 + 5)) > 0.99)
        #expect(Self.cosine(k(23 * 60 + 55), k(5)) > 0.99)
        #expect(Self.cosine(k(7 * 60 + 55), k(19 * 60 + 55)) < 0.01)
        #expect(abs(k(123).reduce(0, +) - 1) < 1e-12)
        #expect(encoder.timeWindowLabel(kernel: 7) == "07:00-08:00")
        #expect(encoder.timeWindowLabel(kernel: 23) == "23:00-00:00")
    }

    @Test func vectorLayoutAndGroups() {
        var space = FeatureSpace()
        let mail = space.insert(Fixtures.target("mail"))
        space.insert(Fixtures.target("news"))
        let work = space.insert(ContextValue(key: "focus", value: "work"))
        let encoder = MomentEncoder()
        let layout = encoder.layout(for: space)
        #expect(layout.dimension == 1 + 24 + 7 + 2 + 1 + 3)
        // Saturday 2026-01-10 09:00 UTC, mail 30 minutes earlier (one half-life).
        let moment = Moment(date: Fixtures.date(day: 5, hour: 9), utcOffset: 0, context: ["focus": "work", "unknown": "x"],
                            recent: [Fixtures.event("mail", day: 5, hour: 8.5)])
        let x = encoder.encode(moment, in: space)
        #expect(x[layout.bias] == 1)
        #expect(x[layout.weekday.lowerBound + 5] == 1)
        #expect(x[layout.weekend.lowerBound + 1] == 1)
        #expect(x[layout.column(of: work)] == 1)
        #expect(abs(x[layout.column(previous: mail)] - 0.5) < 1e-12)
        #expect(abs(x[layout.noPrevious] - 0.5) < 1e-12)
        #expect(abs(x[layout.time].reduce(0, +) - 1) < 1e-12)
    }

    @Test func configuredZoneReadsUTCLogsLocally() {
        // 12:30 UTC on 2026-01-05 is 07:30 in New York (EST, -5h).
        let encoder = MomentEncoder(EncoderConfiguration(timeZoneIdentifier: "America/New_York"))
        let utc = MomentEncoder()
        let space = FeatureSpace()
        let moment = Moment(date: Fixtures.date(day: 0, hour: 12.5), utcOffset: 0)
        let local = encoder.encode(moment, in: space)
        let expected = utc.encode(Moment(date: Fixtures.date(day: 0, hour: 7.5), utcOffset: 0), in: space)
        #expect(local == expected)
    }

    @Test func spaceGrowsAndFilters() {
        var space = FeatureSpace(events: [Fixtures.event("b", day: 0, hour: 1, context: ["place": "home"]),
                                          Fixtures.event("a", day: 0, hour: 2, context: ["focus": "work"])])
        #expect(space.targets.map(\.rawValue) == ["a", "b"])
        #expect(space.contextKeys == ["focus", "place"])
        #expect(space.insert(Fixtures.target("a")) == TargetIndex(0))
        #expect(space.insert(Fixtures.target("c")) == TargetIndex(2))
        let filtered = space.filtered(keepingTarget: { $0 != TargetIndex(1) }, keepingColumn: { $0 == ContextColumn(1) })
        #expect(filtered.space.targets.map(\.rawValue) == ["a", "c"])
        #expect(filtered.targetMap == [0, nil, 1])
        #expect(filtered.space.contextValues == [ContextValue(key: "place", value: "home")])
        #expect(space.mapping(to: filtered.space).targets == [0, nil, 1])
    }

    /// A context's new values get columns in `ContextValue` order, whatever order the dictionary
    /// iterates in (with eight keys, hash order matching it by chance is 1 in 40,320).
    @Test func newContextValuesGetColumnsInValueOrder() {
        let context = Dictionary(uniqueKeysWithValues: ["h", "c", "f", "a", "g", "d", "b", "e"].map { ("key-\($0)", "v") })
        var space = FeatureSpace()
        let columns = space.insertColumns(for: context)
        #expect(columns == (0 ..< 8).map(ContextColumn.init))
        #expect(space.contextValues == context.map { ContextValue(key: $0.key, value: $0.value) }.sorted())
        #expect(space.contextKeys == context.keys.sorted())
    }

    /// The canonical order of events at one instant compares their context values, not the columns
    /// a space happened to number them with: two spaces numbering the same values in opposite
    /// orders give one log.
    @Test func logOrderDoesNotDependOnColumnNumbering() {
        let values = [ContextValue(key: "k1", value: "x"), ContextValue(key: "k1", value: "y"),
                      ContextValue(key: "k2", value: "a"), ContextValue(key: "k2", value: "z")]
        let events = [Fixtures.event("t", day: 0, hour: 9, context: ["k1": "y", "k2": "a"]),
                      Fixtures.event("t", day: 0, hour: 9, context: ["k1": "x", "k2": "z"])]
        func logged(_ space: FeatureSpace) -> [[ContextValue]] {
            let log = EventLog(events: events.map { space.loggedEvent(for: $0)! }, space: space)
            return log.events.map { $0.context.map(space.contextValue(at:)).sorted() }
        }
        let forward = FeatureSpace(targets: [Fixtures.target("t")], contextValues: values)
        let backward = FeatureSpace(targets: [Fixtures.target("t")], contextValues: values.reversed())
        #expect(logged(forward) == [[values[0], values[3]], [values[1], values[2]]])
        #expect(logged(backward) == logged(forward))
    }

    @Test func usageTrackerRanksAndDecays() {
        var usage = UsageTracker(targetCount: 3, shortHalfLifeDays: 1, longHalfLifeDays: 14)
        usage.record(target: 0, time: 0, weight: 1)
        usage.record(target: 1, time: 60, weight: 1)
        usage.record(target: 0, time: 120, weight: 1)
        #expect(usage.mostRecent(5) == [0, 1])
        #expect(abs(usage.short.value(at: 1, time: 60 + 86_400) - 0.5) < 1e-12)
        // 0 -> 1 once, 1 -> 0 once: P(1 | 0) is (1 + f) / (1 + 1) with fallback f.
        #expect(abs(usage.transitionProbability(from: 0, to: 1, fallback: 0.2) - 0.6) < 1e-4)
    }
}
