import Foundation

// MARK: - Fusion configuration

/// The weights, floors and limits of the ranking (see `RelevanceSignals.score`
/// and docs/RANKING.md for the formula they enter).
///
/// Defaults are chosen so that a declared signal alone (an app's date window,
/// a timeline entry at its best) is enough to show on the Smart Stack, while a
/// model prediction must be confident (probability >= rotation floor) to move it.
public struct FusionConfiguration: Sendable, Hashable {
    // MARK: Evidence weights (each in 0...1: the score a signal at full strength gives on its own)

    /// Weight of the model's probability of the target (or of a widget's configuration intent).
    public var modelWeight: Double = 1.0
    /// Weight of being inside a declared date window of a relevant shortcut.
    public var windowWeight: Double = 0.9
    /// Weight of "new content" times how much the user uses the app at this hour.
    public var newContentWeight: Double = 0.6
    /// Weight of the widget's normalised timeline relevance.
    public var timelineWeight: Double = 0.8

    // MARK: Feedback

    /// How much "not now" lowers an item right after it (0.8: the score is multiplied by 0.2).
    public var dismissalStrength: Double = 0.8
    /// The dismissal's effect halves every `dismissalHalfLife` seconds.
    public var dismissalHalfLife: TimeInterval = 4 * 3600
    /// Each impression without engagement within `fatigueWindow` multiplies the score by `1 - impressionFatigue`.
    public var impressionFatigue: Double = 0.05
    public var fatigueWindow: TimeInterval = 24 * 3600
    /// How long "new content" (an empty provider list) stays new after the app declared it.
    public var newContentLifetime: TimeInterval = 24 * 3600

    // MARK: Floors (confidence): below them a surface shows nothing

    /// The least score an intent suggestion needs.
    public var suggestionFloor: Double = 0.02
    /// The least score for Smart Rotate to turn the stack to a widget.
    public var rotationFloor: Double = 0.3
    /// The least score for Widget Suggestions to insert a widget (stricter: inserting is intrusive).
    public var insertionFloor: Double = 0.5

    // MARK: Stability and rate limits

    /// The item already shown competes with its score multiplied by `1 + hysteresis`,
    /// both against challengers and against the floor.
    public var hysteresis: Double = 0.15
    /// Smart Rotate leaves a widget it rotated to only after this many seconds
    /// unless that widget stops being relevant (rate limit).
    public var minimumDwell: TimeInterval = 15 * 60
    /// At most this many widget insertions per stack per local day (rate limit).
    public var maximumInsertionsPerDay: Int = 6
    /// At most this many inserted widgets in a stack at once (rate limit).
    public var maximumConcurrentInsertions: Int = 2

    public init() {}

    public static let standard = FusionConfiguration()

    // MARK: Developer mode

    /// The configuration a developer-mode stack uses: every candidate with a
    /// positive score clears the floors, and the rate limits (dwell, daily and
    /// concurrent insertions) are lifted. Weights, feedback and hysteresis are unchanged.
    public var liftingLimits: FusionConfiguration {
        var copy = self
        copy.suggestionFloor = .leastNonzeroMagnitude
        copy.rotationFloor = .leastNonzeroMagnitude
        copy.insertionFloor = .leastNonzeroMagnitude
        copy.minimumDwell = 0
        copy.maximumInsertionsPerDay = .max
        copy.maximumConcurrentInsertions = .max
        return copy
    }

    // MARK: Validation

    /// Checks every value's range.
    /// - Throws: `FusionConfigurationError` naming the first value out of range.
    package func validate() throws(FusionConfigurationError) {
        let unit: [(String, Double)] = [
            ("modelWeight", modelWeight), ("windowWeight", windowWeight), ("newContentWeight", newContentWeight),
            ("timelineWeight", timelineWeight), ("dismissalStrength", dismissalStrength), ("impressionFatigue", impressionFatigue),
            ("suggestionFloor", suggestionFloor), ("rotationFloor", rotationFloor), ("insertionFloor", insertionFloor),
        ]
        for (name, value) in unit where !(0...1).contains(value) {
            throw FusionConfigurationError(name: name, reason: "must be in 0...1, found \(value)")
        }
        let durations: [(String, Double)] = [
            ("dismissalHalfLife", dismissalHalfLife), ("fatigueWindow", fatigueWindow),
            ("newContentLifetime", newContentLifetime), ("minimumDwell", minimumDwell),
        ]
        for (name, value) in durations where !(value >= 0 && value.isFinite) {
            throw FusionConfigurationError(name: name, reason: "must be a finite number of seconds >= 0, found \(value)")
        }
        guard hysteresis >= 0, hysteresis.isFinite else { throw FusionConfigurationError(name: "hysteresis", reason: "must be >= 0, found \(hysteresis)") }
        for (name, value) in [("maximumInsertionsPerDay", maximumInsertionsPerDay), ("maximumConcurrentInsertions", maximumConcurrentInsertions)]
        where value < 0 {
            throw FusionConfigurationError(name: name, reason: "must be >= 0, found \(value)")
        }
    }
}

/// A configuration value out of range.
package struct FusionConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    package var name: String
    package var reason: String
    package var description: String { "\(name): \(reason)" }
}
