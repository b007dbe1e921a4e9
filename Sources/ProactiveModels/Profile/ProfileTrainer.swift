import Foundation
import ProactiveCore

// MARK: - Configuration

/// Hyperparameters of the profile (naive-Bayes-like) model.
public struct ProfileConfiguration: Sendable, Hashable {
    package var encoder: EncoderConfiguration
    /// Exponential forgetting: an event's weight halves every `halfLifeDays`; `nil` never forgets.
    package var halfLifeDays: Double?
    /// Laplace (additive) smoothing α added to every bucket of a feature group.
    package var smoothing: Double
    /// Additive smoothing β of the per-target prior (how often the target happens at all).
    package var priorSmoothing: Double

    public init(encoder: EncoderConfiguration = EncoderConfiguration(), halfLifeDays: Double? = 30,
                smoothing: Double = 0.5, priorSmoothing: Double = 0.5) {
        self.encoder = encoder
        self.halfLifeDays = halfLifeDays
        self.smoothing = smoothing
        self.priorSmoothing = priorSmoothing
    }
}

/// A configuration value that cannot be used, named by its field.
package struct ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    package var field: String
    package var reason: String
    package init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }
    package var description: String { "\(field): \(reason)" }
}

extension ProfileConfiguration {
    /// - Throws: `ConfigurationError` naming the first invalid field.
    package func validate() throws(ConfigurationError) {
        if let halfLifeDays, !(halfLifeDays > 0 && halfLifeDays.isFinite) {
            throw ConfigurationError(field: "halfLifeDays", reason: "must be a positive number of days, got \(halfLifeDays)")
        }
        guard smoothing > 0, smoothing.isFinite else {
            throw ConfigurationError(field: "smoothing", reason: "must be positive, got \(smoothing)")
        }
        guard priorSmoothing > 0, priorSmoothing.isFinite else {
            throw ConfigurationError(field: "priorSmoothing", reason: "must be positive, got \(priorSmoothing)")
        }
        try encoder.validate()
    }
}

extension EncoderConfiguration {
    /// - Throws: `ConfigurationError` naming the first invalid field.
    package func validate() throws(ConfigurationError) {
        guard (1 ... 288).contains(timeKernels) else {
            throw ConfigurationError(field: "timeKernels", reason: "must be 1...288, got \(timeKernels)")
        }
        guard timeConcentration >= 0, timeConcentration.isFinite else {
            throw ConfigurationError(field: "timeConcentration", reason: "must be >= 0, got \(timeConcentration)")
        }
        guard previousHalfLifeMinutes > 0, previousHalfLifeMinutes.isFinite else {
            throw ConfigurationError(field: "previousHalfLifeMinutes", reason: "must be positive, got \(previousHalfLifeMinutes)")
        }
        if let timeZoneIdentifier, TimeZone(identifier: timeZoneIdentifier) == nil {
            throw ConfigurationError(field: "timeZoneIdentifier", reason: "unknown time zone \"\(timeZoneIdentifier)\"")
        }
    }
}

// MARK: - Trainer

/// Fits a `ProfileModel`: per target, decayed counts of every feature bucket.
///
/// ```swift
/// let model = try ProfileTrainer().fit(TrainingSet(events: events))
/// let top = model.scores(at: Moment(date: now)).prefix(4)
/// ```
public struct ProfileTrainer: ModelTrainer {
    package var configuration: ProfileConfiguration
    package var name: String { "profile" }

    public init(configuration: ProfileConfiguration = ProfileConfiguration()) {
        self.configuration = configuration
    }

    /// - Throws: `ConfigurationError` for an unusable configuration.
    /// - Complexity: O(events x dimension) plus O(targets x dimension) logarithms.
    public func fit(_ training: TrainingSet) throws -> ProfileModel {
        try configuration.validate()
        return ProfileModel(configuration: configuration, events: training.events)
    }
}
