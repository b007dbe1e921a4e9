import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - Which model, read how

/// The model a user's live state holds and how dates are read for it.
///
/// Together with the digests of the intent definitions and the Focus
/// timeline, this is what a saved state must match to be reused; any other
/// difference (new or deleted donations) is caught up incrementally.
public struct ModelChoice: Sendable, Hashable {
    /// One of `ModelChoice.names` (default `blend`).
    public var name: String
    /// An IANA zone overriding the user's configured one (nil: the user's zone, else the donations' own offsets).
    public var timeZoneOverride: String?

    /// The models that keep a live state: the default first.
    public static let names = ModelRegistry.builtIn.liveNames
    public static let defaultName = ModelRegistry.builtIn.defaultName

    public init(name: String = ModelChoice.defaultName, timeZoneOverride: String? = nil) {
        self.name = name
        self.timeZoneOverride = timeZoneOverride
    }

    /// - Throws: `EngineError.invalidRequest` for a model without a live state or an unknown zone.
    public func validate() throws(EngineError) {
        guard Self.names.contains(name) else {
            throw EngineError(.invalidRequest, "model \"\(name)\" keeps no live state; use one of \(Self.names.joined(separator: ", "))")
        }
        if let timeZoneOverride, TimeZone(identifier: timeZoneOverride) == nil {
            throw EngineError(.invalidRequest, "unknown time zone \"\(timeZoneOverride)\" (an IANA name such as America/Los_Angeles)")
        }
    }
}

// MARK: - Models a live state can hold

/// A saved model that also unlearns single events (profile, logistic, blend).
public protocol LiveLearningModel: PersistentModel {
    /// Forgets one learned event. - Returns: false when no such event was learned.
    mutating func remove(_ event: Event) -> Bool
    /// Learns one event of a run learned one after the other (a fold), with `memo` kept across the run
    /// for what the model may reuse (see `BlendModel.update(with:memo:)`): exactly what `update(with:)` learns.
    mutating func update(with event: Event, memo: ClockMemo?)
    /// Learns donations of a fold in order, the events of one instant together (see
    /// `FittedModel.update(with:)` for a batch), with `memo` as above.
    mutating func update(with events: [Event], memo: ClockMemo?)
}

extension LiveLearningModel {
    public mutating func update(with event: Event, memo: ClockMemo?) { update(with: event) }
    public mutating func update(with events: [Event], memo: ClockMemo?) {
        for event in events { update(with: event, memo: memo) }
    }
}

extension BlendModel: LiveLearningModel {}
extension ProfileModel: LiveLearningModel {}
extension LogisticModel: LiveLearningModel {}

enum LiveModels {
    /// Fits the named model on `training`, reading dates in `zone`.
    static func fit(_ name: String, _ training: TrainingSet, zone: String?) throws -> any LiveLearningModel {
        let fitted = try ModelRegistry.builtIn.fitLive(name, training, timeZone: zone)
        guard let live = fitted as? any LiveLearningModel else {
            throw EngineError(.invalidRequest, "model \(name) cannot unlearn events")
        }
        return live
    }

    /// The blend's trainer for dates read in `zone`, when `name` is the blend (its training runs in steps).
    static func blendTrainer(_ name: String, zone: String?) -> BlendTrainer? {
        name == "blend" ? BlendTrainer(configuration: BlendConfiguration().inTimeZone(zone)) : nil
    }

    /// Reads saved bytes back: a model in one piece, or both parts of one saved in two.
    static func decode(_ bytes: [UInt8], heavy: [UInt8]? = nil) throws(ModelFormatError) -> any LiveLearningModel {
        try live(ModelArchive.decodeAny(bytes, heavy: heavy))
    }

    /// Reads the light part of a model saved in two alone (`ModelArchive.decodeForScoring`): for scoring only.
    static func decodeForScoring(_ bytes: [UInt8]) throws(ModelFormatError) -> any LiveLearningModel {
        try live(ModelArchive.decodeForScoring(bytes))
    }

    /// Reads the light part of a model saved in two with the start of its heavy part, all but the training
    /// rows (`ModelArchive.decodeWithoutTail`): for scoring and explaining only.
    static func decodeForExplaining(_ bytes: [UInt8], heavyPrefix: [UInt8]) throws(ModelFormatError) -> any LiveLearningModel {
        try live(ModelArchive.decodeWithoutTail(bytes, heavyPrefix: heavyPrefix))
    }

    /// `model` as a model that learns and unlearns, the built-in ones by their type: a cast to a concrete
    /// type compares the type, where a cast to a protocol makes the runtime search every loaded image's
    /// conformances the first time a process asks.
    private static func live(_ model: any PersistentModel) throws(ModelFormatError) -> any LiveLearningModel {
        switch model {
        case let blend as BlendModel: return blend
        case let profile as ProfileModel: return profile
        case let logistic as LogisticModel: return logistic
        default:
            guard let live = model as? any LiveLearningModel else { throw .unknownKind(model.name) }
            return live
        }
    }

    /// `model`'s reasons, when it gives any; the built-in ones by their type (as `live(_:)`).
    static func explainer(_ model: any LiveLearningModel) -> (any ExplainableModel)? {
        switch model {
        case let blend as BlendModel: blend
        case let profile as ProfileModel: profile
        default: model as? any ExplainableModel
        }
    }

    /// The time of the newest event `model` learned (nil: none, or a model that keeps no log).
    static func newestEventTime(_ model: any LiveLearningModel) -> Double? {
        switch model {
        case let blend as BlendModel: [blend.profile.log.last?.time, blend.logistic?.log.last?.time].compactMap { $0 }.max()
        case let profile as ProfileModel: profile.log.last?.time
        case let logistic as LogisticModel: logistic.log.last?.time
        default: nil
        }
    }
}
