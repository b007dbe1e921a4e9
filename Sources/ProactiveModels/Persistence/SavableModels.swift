import Foundation

// MARK: - Models that can be saved

/// The models `proactive train` can save, by name, each fitted for a user's time zone.
///
/// ```swift
/// let model = try SavableModels.fit("blend", training, timeZone: "America/New_York")
/// let bytes = model.serialized()                          // store these
/// let again = try ModelArchive.decodeAny(bytes)           // any PersistentModel
/// ```
public enum SavableModels {
    /// The default first.
    public static let names = ["blend", "profile", "logistic"]
    public static let defaultName = "blend"

    /// Fits the named model with its default configuration read in `timeZone`
    /// (an IANA name; nil reads each donation's own offset).
    /// - Throws: `ConfigurationError` for an unknown name or zone.
    public static func fit(_ name: String, _ training: TrainingSet, timeZone: String?) throws -> any PersistentModel {
        var encoder = EncoderConfiguration()
        encoder.timeZoneIdentifier = timeZone
        switch name {
        case "blend":
            return try BlendTrainer(configuration: BlendConfiguration().inTimeZone(timeZone)).fit(training)
        case "profile":
            return try ProfileTrainer(configuration: ProfileConfiguration(encoder: encoder)).fit(training)
        case "logistic":
            return try LogisticTrainer(configuration: LogisticConfiguration(encoder: encoder)).fit(training)
        default:
            throw ConfigurationError(field: "model", reason: "\"\(name)\" cannot be saved; savable models: \(names.joined(separator: ", "))")
        }
    }
}
