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
    /// True for the simple reference methods a comparison lists first (`comparison`).
    public let isBaseline: Bool
    /// Fits one user's model.
    package let fit: @Sendable (TrainingSet) throws -> any FittedModel
    /// For models that keep a live state (saved, updated, unlearning): fits the model with its
    /// dates read in an IANA zone (nil: each donation's own offset). Nil for the baselines.
    package let fitLive: (@Sendable (TrainingSet, String?) throws -> any PersistentModel)?
    /// For models with population priors: prepares every user at once (the users' shared prior
    /// first), dates read in an IANA zone, at most the given number of users at once; each user
    /// is then fitted by `PopulationFits.fit(_:)`. Nil: users are fitted one by one.
    package let fitPopulation: (@Sendable ([TrainingSet], String?, Int) throws -> PopulationFits)?

    /// Wraps any trainer; the entry is named after the trainer.
    package init<Trainer: ModelTrainer>(_ trainer: Trainer, summary: String, isBaseline: Bool = false) {
        name = trainer.name
        self.summary = summary
        self.isBaseline = isBaseline
        fit = { training in try trainer.fit(training) }
        fitLive = nil
        fitPopulation = nil
    }

    /// A model that keeps a live state: `fit` is `fitLive` without a zone.
    package init(name: String, summary: String, fitLive: @escaping @Sendable (TrainingSet, String?) throws -> any PersistentModel,
                fitPopulation: (@Sendable ([TrainingSet], String?, Int) throws -> PopulationFits)? = nil) {
        self.name = name
        self.summary = summary
        isBaseline = false
        fit = { training in try fitLive(training, nil) }
        self.fitLive = fitLive
        self.fitPopulation = fitPopulation
    }

    /// An entry from a fitting closure (for models assembled from several trainers).
    package init(name: String, summary: String, isBaseline: Bool = false,
                fit: @escaping @Sendable (TrainingSet) throws -> any FittedModel) {
        self.name = name
        self.summary = summary
        self.isBaseline = isBaseline
        self.fit = fit
        fitLive = nil
        fitPopulation = nil
    }
}

/// Users prepared together (a population prior learned from all of them), each fitted once on
/// demand: what a user's fit needs is freed as soon as that user is fitted, so memory holds the
/// prepared users, not every fitted model at once.
package final class PopulationFits: @unchecked Sendable {
    private var pending: [(@Sendable () throws -> any PersistentModel)?]
    private let lock = NSLock()

    package init(_ fits: [@Sendable () throws -> any PersistentModel]) { pending = fits }

    package var count: Int { pending.count }

    /// Fits user `index` (in the order prepared). - Precondition: each index is fitted once.
    package func fit(_ index: Int) throws -> any PersistentModel {
        lock.lock()
        let fit = pending[index]
        pending[index] = nil
        lock.unlock()
        guard let fit else { preconditionFailure("user \(index) of the population was already fitted") }
        return try fit()
    }
}

/// The models a caller can select by name (`entry(named:)`).
///
/// Adding a model is one line in `builtIn` (an `ModelEntry(SomeTrainer(), summary: ...)`).
package struct ModelRegistry: Sendable {
    package private(set) var entries: [ModelEntry]
    /// The model used when none is named.
    package var defaultName: String

    /// - Precondition: names are unique and `defaultName` is one of them.
    package init(_ entries: [ModelEntry], defaultName: String) {
        precondition(Set(entries.map(\.name)).count == entries.count, "model names must be unique")
        precondition(entries.contains { $0.name == defaultName }, "the default model must be registered")
        self.entries = entries
        self.defaultName = defaultName
    }

    /// Every model the engine ships: the baselines, then the engine's own models.
    package static let builtIn = ModelRegistry([
        ModelEntry(MostFrequentTrainer(), summary: "most frequently used", isBaseline: true),
        ModelEntry(MostRecentTrainer(), summary: "most recently used", isBaseline: true),
        ModelEntry(MarkovTrainer(), summary: "first-order Markov on the previous target, frequency backoff", isBaseline: true),
        ModelEntry(HourOfDayTrainer(), summary: "frequency at this local hour, backoff to overall frequency", isBaseline: true),
        ModelEntry(FrecencyTrainer(), summary: "exponentially decayed use, 30-day half-life", isBaseline: true),
        ModelEntry(name: "profile", summary: "naive-Bayes profiles over time, day, context and previous target, 30-day forgetting") {
            try ProfileTrainer(configuration: ProfileConfiguration(encoder: EncoderConfiguration(timeZoneIdentifier: $1))).fit($0)
        },
        ModelEntry(name: "logistic", summary: "multinomial logistic regression on the same features (L-BFGS, L2)") {
            try LogisticTrainer(configuration: LogisticConfiguration(encoder: EncoderConfiguration(timeZoneIdentifier: $1))).fit($0)
        },
        ModelEntry(name: "blend", summary: "default: profile, logistic, recency, transitions and frequency blended with per-user weights, "
                       + "pulled toward the population's and guarded by held-out rows",
                   fitLive: { try BlendTrainer(configuration: BlendConfiguration().inTimeZone($1)).fit($0) },
                   fitPopulation: { try BlendTrainer(configuration: BlendConfiguration().inTimeZone($1)).prepare(population: $0, workers: $2) }),
    ], defaultName: "blend")

    /// The models that keep a live state (saved, learning each donation, unlearning deletions), the default first.
    package var liveNames: [String] {
        let live = entries.filter { $0.fitLive != nil }.map(\.name)
        return live.contains(defaultName) ? [defaultName] + live.filter { $0 != defaultName } : live
    }

    /// Fits the named live model with its dates read in `timeZone` (nil: each donation's own offset).
    /// - Throws: `ConfigurationError` for a name without a live state.
    package func fitLive(_ name: String, _ training: TrainingSet, timeZone: String?) throws -> any PersistentModel {
        guard let fit = entry(named: name)?.fitLive else {
            throw ConfigurationError(field: "model", reason: "\"\(name)\" keeps no live state; models that do: \(liveNames.joined(separator: ", "))")
        }
        return try fit(training, timeZone)
    }

    /// Registered names (without the `default` alias).
    package var names: [String] { entries.map(\.name) }
    package var baselines: [ModelEntry] { entries.filter(\.isBaseline) }
    package var defaultEntry: ModelEntry { entry(named: defaultName)! }

    /// The alias that always names the default model.
    package static let defaultAlias = "default"

    /// The entry called `name`; `default` names the default model.
    package func entry(named name: String) -> ModelEntry? {
        entries.first { $0.name == (name == Self.defaultAlias ? defaultName : name) }
    }

    /// The models a comparison runs: every baseline, then the default model if it is not one of them.
    package var comparison: [ModelEntry] {
        var list = baselines
        if !list.contains(where: { $0.name == defaultName }) { list.append(defaultEntry) }
        return list
    }
}
