import Foundation
import ProactiveCore
@testable import ProactiveEngine
@testable import ProactiveLab
import Testing

/// Issue #27: the routine suite (`RoutineCatalogue`) judged through the engine, one test case a scenario.
@Suite("Routine suite")
struct RoutineSuiteTests {
    /// The scenarios the current model gets wrong (the one place to shrink as the model is fixed).
    /// A scenario listed here that passes fails the test ("known issue was not recorded"): remove it then.
    /// holiday-gap: the habit-rate signal weighs each past day by its recency among the days of its
    /// cell, so two weeks of a holiday routine are the most recent evidence at 12:58 on the day back, and the
    /// holiday's camera leads the four-week routine's mail; only today's coffee after the weather says the old
    /// routine is back, and the rate does not read what today's morning resembles.
    static let knownFailures: Set<String> = ["holiday-gap"]

    @Test(arguments: RoutineCatalogue.all.map(\.name))
    func routine(_ name: String) throws {
        let scenario = try #require(RoutineCatalogue.scenario(named: name))
        let outcome = try RoutineSuite.run(scenario)
        #expect(!outcome.checks.isEmpty)
        if Self.knownFailures.contains(name) {
            withKnownIssue("issue #27: \(scenario.why)") { Self.expectPassed(outcome) }
        } else {
            Self.expectPassed(outcome)
        }
    }

    /// One expectation a check, naming the moment and what went wrong.
    static func expectPassed(_ outcome: RoutineScenarioOutcome) {
        for check in outcome.checks {
            let passed = check.passed
            #expect(passed, "\(outcome.scenario.name) at \(check.moment): \(check.problems.joined(separator: "; ")); reasons \(check.reasons)")
        }
    }

    /// At least 15 scenarios with distinct names, each with a reason for a person and at least one check.
    @Test func catalogueIsWellFormed() throws {
        let names = RoutineCatalogue.all.map(\.name)
        #expect(names.count >= 15)
        #expect(Set(names).count == names.count)
        for scenario in RoutineCatalogue.all {
            #expect(!scenario.why.isEmpty && !scenario.checks.isEmpty, "\(scenario.name)")
            for check in scenario.checks { #expect(scenario.users.contains { $0.name == check.user }, "\(scenario.name): \(check.user)") }
        }
    }

    /// The same seed gives the same log; another seed another one.
    @Test func logsAreDeterministic() throws {
        let scenario = try #require(RoutineCatalogue.scenario(named: "noisy-user"))
        let first = try scenario.trainingLog()
        let again = try scenario.trainingLog()
        var reseeded = scenario
        reseeded.seed += 1
        let other = try reseeded.trainingLog()
        #expect(first == again)
        #expect(first != other)
        #expect(first.count > 300)
    }

    /// A habit keeps its wall-clock time across the Pacific DST change: 07:40 is 14:40 UTC before it, 15:40 UTC after.
    @Test func habitsKeepTheWallClockAcrossDST() throws {
        let scenario = try #require(RoutineCatalogue.scenario(named: "dst-los-angeles"))
        let clock = try RoutineClock(try scenario.user("hal"))
        let before = clock.instant(day: 26, minute: 7 * 60 + 40)  // Saturday 2026-10-31
        let after = clock.instant(day: 28, minute: 7 * 60 + 40)   // Monday 2026-11-02
        #expect(before.utcOffset == -7 * 3600 && after.utcOffset == -8 * 3600)
        #expect(Timestamp.format(secondsSince1970: before.date.timeIntervalSince1970, utcOffsetSeconds: 0).contains("T14:40"))
        #expect(Timestamp.format(secondsSince1970: after.date.timeIntervalSince1970, utcOffsetSeconds: 0).contains("T15:40"))
        #expect(clock.text(day: 28, minute: 7 * 60 + 40) == "Mon 2026-11-02 07:40")
    }
}
