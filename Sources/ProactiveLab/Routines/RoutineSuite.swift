import Foundation
import ProactiveCore
import ProactiveEngine
import ProactiveModels
import ProactiveStore

// MARK: - Outcomes

/// How one check went: what was expected, what the engine answered, and why it failed.
public struct RoutineCheckOutcome: Sendable {
    public var check: RoutineCheck
    /// The moment on the user's clock, for a person ("Sat 2026-10-17 07:38 Europe/Berlin focus=work").
    public var moment: String
    /// The expected target's summary.
    public var expected: String
    /// The top-1 target's summary and probability (nil when nothing was ranked).
    public var got: String?
    public var probability: Double?
    /// The expected target's 1-based rank among the rows asked for (nil when not among them) and its probability.
    public var expectedRank: Int?
    public var expectedProbability: Double?
    /// The top-1 target's reasons, and the expected target's (empty when it is not among the rows).
    public var reasons: [String]
    public var expectedReasons: [String]
    /// What went wrong, for a person; empty when the check passed.
    public var problems: [String]

    public var passed: Bool { problems.isEmpty }
}

/// How one scenario went: its checks in order.
public struct RoutineScenarioOutcome: Sendable {
    public var scenario: RoutineScenario
    public var checks: [RoutineCheckOutcome]

    public var passedCount: Int { checks.filter(\.passed).count }
    public var passed: Bool { checks.allSatisfy(\.passed) }
}

// MARK: - Running

/// Runs routine scenarios through an `Engine` as an app lives with it.
///
/// For each scenario: a fresh in-memory store (retention: keep everything), the users' zones set
/// (those with `configuresZone`), the training log stored, every user trained once
/// (`Engine.train(users:)`), the live days donated one by one, then the steps in order:
/// donations through `Engine.donate`, deletions through `Engine.delete`, checks through
/// `Engine.predict` (top `rows` targets). Every `now` is the scenario's own time (the last
/// training donation, then each step's moment): nothing reads the wall clock.
///
/// ```swift
/// let outcome = try RoutineSuite.run(RoutineCatalogue.scenario(named: "saturday-after-weather")!)
/// for check in outcome.checks where !check.passed { print(check.moment, check.problems) }
/// ```
public enum RoutineSuite {
    /// How many targets each check asks `predict` for (the expected target's rank is looked for among them).
    public static let rows = 5

    /// Runs `scenario`.
    /// - Throws: `RoutineError` when the scenario is malformed (unknown user or zone, steps not in
    ///   time order); engine and store errors as thrown.
    public static func run(_ scenario: RoutineScenario) throws -> RoutineScenarioOutcome {
        let engine = Engine(storage: try SQLiteBackend.inMemory())
        try engine.storage.privacy.setRetention(.keepAll)
        let store = engine.storage.donations
        var clocks: [String: RoutineClock] = [:]
        for user in scenario.users {
            clocks[user.name] = try RoutineClock(user)
            if user.configuresZone { try store.setTimeZone(user.timeZone, forUser: user.name) }
        }
        func clock(_ user: String) throws -> RoutineClock {
            guard let clock = clocks[user] else { throw RoutineError("\(scenario.name): no user \(user)") }
            return clock
        }

        let training = try scenario.trainingLog()
        guard let trainedAt = training.last?.date else { throw RoutineError("\(scenario.name): the training log is empty") }
        _ = try store.append(training, duplicates: .fail)
        try engine.train(users: scenario.users.map(\.name), now: trainedAt)
        var now = trainedAt
        for donation in try scenario.liveLog() {
            try engine.donate(donation)
            now = max(now, donation.date)
        }

        var outcomes: [RoutineCheckOutcome] = []
        var stepIndex = 0
        func advance(to date: Date, _ what: String) throws {
            guard date >= now else {
                throw RoutineError("\(scenario.name): step \(stepIndex + 1) (\(what)) is before an earlier step or the log; steps go forward in time")
            }
            now = date
        }
        for step in scenario.steps {
            switch step {
            case let .donate(event):
                let (date, offset) = try clock(event.user).instant(day: event.day, minute: event.minute)
                try advance(to: date, "donate \(event.action.summary)")
                try engine.donate(Donation(user: event.user, app: event.action.app, intent: event.action.intent, date: date, utcOffset: offset,
                                           identifier: "routine-step-\(stepIndex)", context: event.context, count: event.count))
            case let .deleteApp(user, app):
                try engine.delete(.matching(DonationFilter(user: user, app: app)), now: now)
            case let .check(check):
                let userClock = try clock(check.user)
                let (date, offset) = userClock.instant(day: check.day, minute: check.minute)
                try advance(to: date, "check")
                let prediction = try engine.predict(user: check.user, at: date, utcOffset: offset, context: check.context, k: rows, now: date)
                let context = check.context.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
                outcomes.append(judge(check, prediction.suggestions,
                                      moment: "\(userClock.text(day: check.day, minute: check.minute)) \(userClock.zone.identifier)\(context)"))
            }
            stepIndex += 1
        }
        return RoutineScenarioOutcome(scenario: scenario, checks: outcomes)
    }

    /// Runs each scenario in turn (see `run(_:)`).
    public static func run(_ scenarios: [RoutineScenario]) throws -> [RoutineScenarioOutcome] {
        try scenarios.map { try run($0) }
    }

    /// Judges `rows` (best first) against `check`. The reason fragments are looked for in the
    /// expected target's reasons (a wrong top-1 fails on its own).
    static func judge(_ check: RoutineCheck, _ rows: [Prediction.Row], moment: String) -> RoutineCheckOutcome {
        let top = rows.first
        let expectedIndex = rows.firstIndex { $0.target == check.expected.target }
        let expectedRow = expectedIndex.map { rows[$0] }
        var problems: [String] = []
        if let top, top.target != check.expected.target {
            problems.append(String(format: "top-1 is %@ (%.3f), expected %@ (%@)", top.summary, top.probability, check.expected.summary,
                                   expectedRow.map { String(format: "rank %d, %.3f", expectedIndex! + 1, $0.probability) } ?? "not in the top \(rows.count)"))
        } else if top == nil {
            problems.append("nothing ranked, expected \(check.expected.summary)")
        }
        if let expectedRow {
            if let fragment = check.reason, !expectedRow.why.contains(where: { $0.contains(fragment) }) {
                problems.append("\(expectedRow.summary)'s reasons lack \"\(fragment)\"")
            }
            if let fragment = check.forbiddenReason, expectedRow.why.contains(where: { $0.contains(fragment) }) {
                problems.append("\(expectedRow.summary)'s reasons say \"\(fragment)\"")
            }
        }
        for action in check.absent {
            if let index = rows.firstIndex(where: { $0.target == action.target }) {
                problems.append("\(action.summary) is ranked \(index + 1)")
            }
            if let row = rows.first(where: { $0.why.contains { $0.contains(action.summary) } }) {
                problems.append("\(row.summary)'s reasons name \(action.summary)")
            }
        }
        return RoutineCheckOutcome(check: check, moment: moment, expected: check.expected.summary, got: top?.summary, probability: top?.probability,
                                   expectedRank: expectedIndex.map { $0 + 1 }, expectedProbability: expectedRow?.probability,
                                   reasons: top?.why ?? [], expectedReasons: expectedRow?.why ?? [], problems: problems)
    }
}
