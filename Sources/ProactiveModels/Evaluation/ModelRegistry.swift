import Foundation
import ProactiveCore

// MARK: - Selectable models

/// One selectable model: a name, a line of explanation, and how to fit it.
///
/// ```swift
/// let entry = ModelEntry(MostFrequentTrainer(), summary: "most frequently used")
/// var model = try entry.fit(training)
/// ```
public struct ModelEntry: Sendable {
    public let name: String
    public let summary: String
    /// True for the simple reference methods `evaluate --compare` lists first.
    public let isBaseline: Bool
    /// Fits one user's model.
    public let fit: @Sendable (TrainingSet) throws -> any FittedModel

    /// Wraps any trainer; the entry is named after the trainer.
    public init<Trainer: ModelTrainer>(_ trainer: Trainer, summary: String, isBaseline: Bool = false) {
        name = trainer.name
        self.summary = summary
        self.isBaseline = isBaseline
        fit = { training in try trainer.fit(training) }
    }

    /// An entry from a fitting closure (for models assembled from several trainers).
    public init(name: String, summary: String, isBaseline: Bool = false,
                fit: @escaping @Sendable (TrainingSet) throws -> any FittedModel) {
        self.name = name
        self.summary = summary
        self.isBaseline = isBaseline
        self.fit = fit
    }
}

/// The models `evaluate --model NAME` can select.
///
/// Adding a model is one line in `builtIn` (an `ModelEntry(SomeTrainer(), summary: ...)`).
public struct ModelRegistry: Sendable {
    public private(set) var entries: [ModelEntry]
    /// What `evaluate` uses without `--model`.
    public var defaultName: String

    /// - Precondition: names are unique and `defaultName` is one of them.
    public init(_ entries: [ModelEntry], defaultName: String) {
        precondition(Set(entries.map(\.name)).count == entries.count, "model names must be unique")
        precondition(entries.contains { $0.name == defaultName }, "the default model must be registered")
        self.entries = entries
        self.defaultName = defaultName
    }

    /// Every model the engine ships: the baselines, then the engine's own models.
    public static let builtIn = ModelRegistry([
        ModelEntry(MostFrequentTrainer(), summary: "most frequently used", isBaseline: true),
        ModelEntry(MostRecentTrainer(), summary: "most recently used", isBaseline: true),
        ModelEntry(MarkovTrainer(), summary: "first-order Markov on the previous target, frequency backoff", isBaseline: true),
        ModelEntry(HourOfDayTrainer(), summary: "frequency at this local hour, backoff to overall frequency", isBaseline: true),
        ModelEntry(FrecencyTrainer(), summary: "exponentially decayed use, 30-day half-life", isBaseline: true),
        ModelEntry(ProfileTrainer(), summary: "naive-Bayes profiles over time, day, context and previous target, 30-day forgetting"),
        ModelEntry(LogisticTrainer(), summary: "multinomial logistic regression on the same features (L-BFGS, L2)"),
        ModelEntry(BlendTrainer(), summary: "default: profile, logistic, recency and transitions blended with per-user fitted weights"),
    ], defaultName: "blend")

    /// Registered names (without the `default` alias).
    public var names: [String] { entries.map(\.name) }
    public var baselines: [ModelEntry] { entries.filter(\.isBaseline) }
    public var defaultEntry: ModelEntry { entry(named: defaultName)! }

    /// The alias that always names the default model.
    public static let defaultAlias = "default"

    /// The entry called `name`; `default` names the default model.
    public func entry(named name: String) -> ModelEntry? {
        entries.first { $0.name == (name == Self.defaultAlias ? defaultName : name) }
    }

    /// What `--compare` runs: every baseline, then the default model if it is not one of them.
    public var comparison: [ModelEntry] {
        var list = baselines
        if !list.contains(where: { $0.name == defaultName }) { list.append(defaultEntry) }
        return list
    }
}
