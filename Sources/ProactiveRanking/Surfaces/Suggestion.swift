import Foundation
import ProactiveCore

// MARK: - Intent suggestions

/// One intent suggestion (a Siri Suggestion): a target with its summary, score and why.
///
/// The reason text is rendered when `why` is read, from the signals and the
/// fusion configuration the suggestion was ranked with, so ranking builds no
/// strings.
public struct Suggestion: Sendable, Hashable {
    public var target: TargetKey
    public var app: String
    /// The human summary ("Weather in Cupertino").
    public var summary: String
    /// The fused score in 0...1 (see `RelevanceSignals.score`).
    public var score: Double
    /// Everything that went into the score.
    package var signals: RelevanceSignals
    /// The configuration the score was fused with (its weights order the reasons).
    public var configuration: FusionConfiguration
    /// The offset local times in the reason are written in, in seconds east of UTC (-28_800 is UTC-08:00).
    public var utcOffset: Int

    package init(target: TargetKey, app: String, summary: String, score: Double, signals: RelevanceSignals,
                configuration: FusionConfiguration, utcOffset: Int) {
        self.target = target
        self.app = app
        self.summary = summary
        self.score = score
        self.signals = signals
        self.configuration = configuration
        self.utcOffset = utcOffset
    }

    /// Why it ranks here, one phrase a reason, strongest contribution first: the declaration's (a
    /// relevance window, a timeline score), the model's probability, the user's feedback, with times
    /// on the suggestion's clock (`RelevanceSignals.reasons`). Example: `["window 09:30–10:30",
    /// "predicted 12% now", "not now at 09:10 (×0.31)"]`. The same name and type as a prediction's
    /// `why`, in the library and in every JSON answer; meant to be shown, not parsed.
    public var why: [String] { signals.reasons(configuration, utcOffset: utcOffset) }

    /// The suggestion as one JSON object (what the CLI's JSON output and the service print).
    public var json: JSONValue {
        .object([
            ("target", .string(target.rawValue)), ("app", .string(app)), ("summary", .string(summary)),
            ("score", .number(score, integer: nil)), ("probability", .number(signals.probability, integer: nil)),
            ("why", .array(why.map(JSONValue.string))),
        ])
    }
}

/// What the suggestions surface showed last time, carried by the caller to the
/// next call so the shown items are sticky (hysteresis).
public struct SuggestionState: Sendable, Hashable {
    /// The targets shown, best first.
    public var shown: [TargetKey]

    public init(shown: [TargetKey] = []) { self.shown = shown }
}

/// One ranked entry in the ranker's reusable buffer (no strings built).
package struct RankedTarget: Sendable, Hashable {
    package var target: TargetKey
    package var score: Double
    /// `score` times `1 + hysteresis` for items shown last time; ranking order.
    package var effective: Double
    package var signals: RelevanceSignals
}
