import Foundation

// MARK: - Errors

/// Why the engine could not do what was asked; the message is meant for a person.
public struct EngineError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Code: String, Sendable {
        /// The user has nothing to learn from.
        case noDonations
        /// A model could not be fitted.
        case fitFailed
        /// A stored declaration, feedback event or Focus row cannot be read.
        case unreadableStoredData
        /// The request itself is wrong (unknown model, bad option).
        case invalidRequest
    }

    public var code: Code
    public var description: String
    /// The request field at fault, as the caller spells it (`k`, `--app`), when one is.
    public var field: String?

    public init(_ code: Code, _ description: String, field: String? = nil) {
        self.code = code
        self.description = description
        self.field = field
    }
}
