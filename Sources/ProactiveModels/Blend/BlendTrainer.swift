import Foundation
import ProactiveCore

// MARK: - Blend trainer

/// Fits the default model (`BlendModel`).
///
/// 1. Events are put in canonical order (so input order never matters).
/// 2. A fresh blend walks them in order. Each event is first scored (its
///    signals stored as a row, label = its target) and then learned, so every
///    row is an honest out-of-sample prediction. Rows are kept for the last
///    `maxRows` events. The logistic component is fitted once on the events
///    before the held-back share (`holdoutShare`, the most recent events) and
///    only the held-back rows see it (earlier rows see a constant, which does
///    not move its weight).
/// 3. The blend weights maximise the rows' log-likelihood (L2 toward the plain
///    profile), by L-BFGS.
/// 4. The components are refitted on all events: the profile exactly, the
///    logistic warm-started from step 2.
///
/// ```swift
/// let trainer = BlendTrainer(configuration: BlendConfiguration().inTimeZone("America/New_York"))
/// var model = try trainer.fit(TrainingSet(donations: donations, resolver: resolver))
/// let top4 = model.top(4, at: Moment(date: now, context: ["focus": "work"]))
/// model.update(with: nextEvent)
/// ```
public struct BlendTrainer: ModelTrainer {
    public var configuration: BlendConfiguration
    public var name: String { "blend" }

    public init(configuration: BlendConfiguration = BlendConfiguration()) {
        self.configuration = configuration
    }

    /// - Throws: `ConfigurationError` for an unusable configuration.
    /// - Complexity: O(events x features) for the walk, O(rows x targets x signals) per
    ///   weight-fit iteration, plus two logistic fits.
    public func fit(_ training: TrainingSet) throws -> BlendModel {
        try configuration.validate()
        let full = ProfileModel(configuration: configuration.profile, events: training.events)
        let events = full.log.events.map { full.event(from: $0) }
        let holdStart = Int((Double(events.count) * (1 - configuration.holdoutShare)).rounded(.down))
        let rowStart = max(0, events.count - configuration.maxRows)

        var walker = BlendModel(configuration: configuration, profile: ProfileModel(configuration: configuration.profile, events: []),
                                logistic: nil, weights: BlendFeature.defaultWeights, rows: BlendRows())
        walker.logisticFrozen = true
        var early: LogisticModel?
        let logisticTrainer = LogisticTrainer(configuration: configuration.logistic)
        for (position, event) in events.enumerated() {
            if configuration.includeLogistic, position == holdStart, position > 0 {
                early = try logisticTrainer.fit(TrainingSet(events: Array(events[..<position])))
                walker.logistic = early
            }
            walker.learn(event, collectRow: position >= rowStart)
        }
        walker.refitWeights()

        var logistic: LogisticModel?
        if configuration.includeLogistic {
            logistic = try logisticTrainer.fit(TrainingSet(events: events), warmStart: early)
        }
        return BlendModel(configuration: configuration, profile: full, logistic: logistic, weights: walker.weights, rows: walker.rows)
    }
}

extension ProfileModel {
    /// The `Event` a logged event stands for.
    public func event(from logged: LoggedEvent) -> Event {
        var context: [String: String] = [:]
        for column in logged.context {
            let value = space.contextValue(at: column)
            context[value.key] = value.value
        }
        return Event(target: space.target(at: logged.target), date: logged.date, utcOffset: logged.utcOffset,
                     context: context, weight: logged.weight)
    }
}
