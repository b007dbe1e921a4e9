import Foundation
import ProactiveCore
import ProactiveModels
import Testing
@testable import ProactiveRanking

@Suite struct FusionTests {
    let configuration = FusionConfiguration.standard

    // MARK: The formula

    @Test func aSingleSignalScoresItsWeight() {
        var signals = RelevanceSignals(probability: 0.4)
        #expect(abs(signals.score(configuration) - 0.4) < 1e-12)
        signals = RelevanceSignals()
        signals.window = DateInterval(start: Day.at(9, 30), end: Day.at(10, 30))
        #expect(abs(signals.score(configuration) - 0.9) < 1e-12)
        signals = RelevanceSignals()
        signals.timeline = TimelineReading(score: 5, normalized: 0.5, since: Day.at(9), until: nil)
        #expect(abs(signals.score(configuration) - 0.4) < 1e-12)
    }

    @Test func signalsCombineByNoisyOr() {
        var signals = RelevanceSignals(probability: 0.5)
        signals.window = DateInterval(start: Day.at(9), end: Day.at(10))
        signals.timeline = TimelineReading(score: 1, normalized: 1, since: Day.at(9), until: nil)
        signals.newContent = 0.5
        let expected = 1 - (1 - 0.5) * (1 - 0.9) * (1 - 0.6 * 0.5) * (1 - 0.8)
        #expect(abs(signals.evidence(configuration) - expected) < 1e-12)
        #expect(signals.score(configuration) <= 1)
        // Agreement raises the score above either signal alone, without exceeding 1.
        #expect(signals.score(configuration) > 0.9)
    }

    @Test func feedbackMultipliesAndABlockZeroes() {
        var signals = RelevanceSignals(probability: 0.6)
        signals.dismissal = 0.5
        signals.fatigue = 0.9
        #expect(abs(signals.score(configuration) - 0.6 * 0.5 * 0.9) < 1e-12)
        signals.block = .never(NeverRule(scope: .app("com.example.mail")))
        #expect(signals.score(configuration) == 0)
        #expect(signals.why(configuration, utcOffset: 0) == "never suggested (app:com.example.mail)")
    }

    @Test func whyListsTheStrongestContributionFirst() {
        var signals = RelevanceSignals(probability: 0.12)
        signals.window = DateInterval(start: Day.at(9, 30), end: Day.at(10, 30))
        signals.dismissal = 0.31
        signals.lastDismissal = Day.at(9, 40)
        #expect(signals.why(configuration, utcOffset: Day.offset) == "window 09:30–10:30; predicted 12% now; not now at 09:40 (×0.31)")
        #expect(signals.reasons(configuration, utcOffset: Day.offset) == ["window 09:30–10:30", "predicted 12% now", "not now at 09:40 (×0.31)"])
        #expect(RelevanceSignals().why(configuration, utcOffset: 0) == "no relevance")
    }

    // MARK: Configuration

    @Test func developerModeLiftsFloorsAndRateLimitsOnly() {
        let lifted = configuration.liftingLimits
        #expect(lifted.rotationFloor < 1e-300 && lifted.insertionFloor < 1e-300 && lifted.suggestionFloor < 1e-300)
        #expect(lifted.minimumDwell == 0 && lifted.maximumInsertionsPerDay == .max)
        #expect(lifted.modelWeight == configuration.modelWeight && lifted.hysteresis == configuration.hysteresis)
    }

    @Test func validationNamesTheValueOutOfRange() throws {
        try configuration.validate()
        var bad = configuration
        bad.windowWeight = 1.5
        #expect(throws: FusionConfigurationError(name: "windowWeight", reason: "must be in 0...1, found 1.5")) { try bad.validate() }
        bad = configuration
        bad.dismissalHalfLife = -1
        #expect(throws: FusionConfigurationError.self) { try bad.validate() }
    }

    // MARK: New content timing

    @Test func usageProfileIsPeakNormalisedAndInterpolated() {
        var levels = Array(repeating: 0.0, count: 24)
        levels[7] = 0.4
        levels[8] = 0.2
        let profile = AppUsageProfile(hourly: ["app": levels])
        let clock = LocalClock()
        #expect(profile.level(app: "app", at: Day.at(7, 30), clock: clock, utcOffset: Day.offset) == 1)
        #expect(abs(profile.level(app: "app", at: Day.at(8), clock: clock, utcOffset: Day.offset) - 0.75) < 1e-12)
        #expect(profile.level(app: "app", at: Day.at(13), clock: clock, utcOffset: Day.offset) == 0)
        #expect(profile.level(app: "other", at: Day.at(7, 30), clock: clock, utcOffset: Day.offset) == 0)
    }

    @Test func usageProfileSamplesTheModelsAppMass() {
        let profile = AppUsageProfile.sample(Talk.model(), apps: ["com.example.weather", "com.example.mail"], dayStart: Day.midnight, utcOffset: Day.offset)
        let weather = try! #require(profile.hourly["com.example.weather"])
        #expect(weather[7] == 1 && abs(weather[12] - 0.05 / 0.7) < 1e-12)
        #expect(profile.hourly["com.example.mail"]![12] == 1)
    }

    @Test func targetKeyAppIsUnescaped() {
        #expect(TargetKey(app: "com.example:odd(app)", intent: "open", parameters: [:]).app == "com.example:odd(app)")
        #expect(Talk.weatherTarget.key.app == "com.example.weather")
    }
}
