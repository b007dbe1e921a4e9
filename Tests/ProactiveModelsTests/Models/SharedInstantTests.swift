import Foundation
import ProactiveCore
import Testing
@testable import ProactiveModels

/// Events at one instant happened together: no row of that instant sees another as "just used", and a
/// question about a moment before the newest learned use sees no recent uses at all.
@Suite("Shared instants and questions about the past")
struct SharedInstantTests {
    static let start = Date(timeIntervalSince1970: 1_790_000_000)  // 2026-09-21T14:13:20Z
    static func app(_ name: String) -> TargetKey { TargetKey(app: "com.example.\(name)", intent: Donation.openIntent, parameters: [:]) }
    static let (a, b, c) = (app("a"), app("b"), app("c"))

    /// a, b, c a minute apart, then all three at one instant an hour later (as one part of the day of an aggregated log).
    static let events: [Event] = [
        Event(target: a, date: start), Event(target: b, date: start.addingTimeInterval(60)),
        Event(target: c, date: start.addingTimeInterval(120)),
    ] + [a, b, c].map { Event(target: $0, date: start.addingTimeInterval(3_600)) }

    /// The candidates at recency position 0 in `row` (candidates x features).
    static func mostRecent(in rows: BlendRows, row: Int) -> [Int] {
        let features = BlendFeature.count
        let offset = rows.candidateCounts[..<row].reduce(0, +) * features
        return (0 ..< rows.candidateCounts[row]).filter { rows.values[offset + $0 * features + BlendFeature.rank0.rawValue] == 1 }
    }

    @Test("the rows of one instant are scored before any of them is learned")
    func rowsOfOneInstant() throws {
        let walk = try BlendTrainer().walk(TrainingSet(events: Self.events))
        let rows = walk.walker.rows
        let space = walk.walker.profile.space
        let lastBefore = try #require(space.index(of: Self.c)).rawValue
        // Rows only for known targets: a, b and c at the shared instant.
        #expect(rows.count == 3)
        for row in 0 ..< 3 {
            #expect(Self.mostRecent(in: rows, row: row) == [lastBefore], "row \(row) sees a use of its own instant as the latest")
        }
    }

    @Test("uses at one instant do not follow each other; the first follows the use before the instant")
    func noTransitionWithinAnInstant() {
        var usage = UsageTracker(targetCount: 3, shortHalfLifeDays: 1, longHalfLifeDays: 14)
        let time = Self.start.timeIntervalSince1970
        usage.record(target: 0, time: time, weight: 1)
        usage.record(target: 1, time: time + 60, weight: 1)
        usage.record(target: 2, time: time + 60, weight: 1)
        #expect(usage.transitions[0][1] != nil)  // 0, then 1 a minute later
        #expect(usage.transitions[1][2] == nil, "two uses of one instant counted as a sequence")
        #expect(usage.transitions[0][2] == nil)
        #expect(usage.lastTarget == 2)
        usage.record(target: 0, time: time + 120, weight: 1)
        #expect(usage.transitions[2][0] != nil)  // what comes later follows the instant's last use
    }

    @Test("a live update scores every event of one instant before it learns any, as training does")
    func liveUpdateOfOneInstant() throws {
        var model = try BlendTrainer().fit(TrainingSet(events: Array(Self.events.prefix(3))))  // a, b, c a minute apart
        let rowsBefore = model.rows.count
        model.update(with: [Self.b, Self.a].map { Event(target: $0, date: Self.start.addingTimeInterval(3_600)) })
        let space = model.profile.space
        let (a, b, c) = try (#require(space.index(of: Self.a)).rawValue, #require(space.index(of: Self.b)).rawValue,
                             #require(space.index(of: Self.c)).rawValue)
        #expect(model.rows.count == rowsBefore + 2)
        for row in rowsBefore ..< model.rows.count {
            #expect(Self.mostRecent(in: model.rows, row: row) == [c], "row \(row) sees a use of its own instant as the latest")
        }
        #expect(model.usage.transitions[b][a] == nil, "b and a at one instant learned as b, then a")
        #expect(model.usage.transitions[c][b] != nil)
    }

    @Test("a moment before the newest learned use has no recency positions and no ages")
    func askedAboutThePast() throws {
        let model = try BlendTrainer().fit(TrainingSet(events: Self.events))
        let features = BlendFeature.count
        func column(_ feature: BlendFeature, at date: Date) -> [Float] {
            let signals = model.signals(at: Moment(date: date))
            return (0 ..< signals.count / features).map { Float(signals[$0 * features + feature.rawValue]) }
        }
        let after = Self.start.addingTimeInterval(7_200), before = Self.start.addingTimeInterval(1_800)
        #expect(column(.rank0, at: after).contains(1))
        #expect(column(.logAge, at: after).allSatisfy { $0 > 0 })
        #expect(column(.rankOlder, at: before).allSatisfy { $0 == 1 })
        #expect(column(.logAge, at: before).allSatisfy { $0 == 0 })
        for feature in BlendFeature.allCases where feature.rawValue >= BlendFeature.repeat1m.rawValue && feature.rawValue <= BlendFeature.repeatLater.rawValue {
            #expect(column(feature, at: before).allSatisfy { $0 == 0 }, "\(feature) marks a previous target at a past moment")
        }
        #expect(column(.transitionRecent, at: before).allSatisfy { $0 == 0 })
    }
}
