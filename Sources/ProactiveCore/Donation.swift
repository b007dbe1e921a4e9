import Foundation

// MARK: - Donation

/// One thing a user did in an app, as the app donated it (docs/FORMATS.md).
///
/// ```swift
/// let donation = Donation(app: "com.example.weather", intent: "CheckWeatherIntent",
///                         parameters: ["location": .entity(id: "cupertino", display: "Cupertino")],
///                         date: Date(timeIntervalSince1970: 1_795_186_931), utcOffset: -8 * 3600)
/// ```
public struct Donation: Sendable, Hashable {
    /// Whose history this is; models are per user.
    public var user: String
    /// The donating app's bundle identifier.
    public var app: String
    /// The intent class name (`"open"` for plain app launches).
    public var intent: String
    public var parameters: [String: ParameterValue]
    /// The instant of the donation.
    public var date: Date
    /// Offset from UTC the date was written in, in seconds east of UTC (-28_800 is
    /// UTC-08:00, 19_800 is UTC+05:30); `nil` when the
    /// log gave Unix seconds. Local clock features use it unless the user has
    /// a configured time zone.
    public var utcOffset: Int?
    public var identifier: String?
    public var group: String?
    /// Flat context (`focus`, `place`, any key).
    public var context: [String: String]
    /// How many identical donations this one stands for (>= 1).
    public var count: Int

    public static let defaultUser = "default"
    /// The intent name of a plain app launch.
    public static let openIntent = "open"

    public init(
        user: String = Donation.defaultUser, app: String, intent: String,
        parameters: [String: ParameterValue] = [:], date: Date, utcOffset: Int? = nil,
        identifier: String? = nil, group: String? = nil, context: [String: String] = [:], count: Int = 1
    ) {
        self.user = user
        self.app = app
        self.intent = intent
        self.parameters = parameters
        self.date = date
        self.utcOffset = utcOffset
        self.identifier = identifier
        self.group = group
        self.context = context
        self.count = count
    }

    /// Milliseconds since 1970 (UTC), the store's time key.
    public var millisecondsSince1970: Int64 { date.millisecondsSince1970 }

    /// The Focus the user was in, if the donation carries one.
    public var focus: String? { context["focus"] }
}

// MARK: - Line errors

/// Why a donation line (or a field of it) was rejected.
/// `description` reads `field: reason`, ready to follow `FILE:LINE: `.
public struct DonationLineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The field at fault (`date`, `parameters.size`, ...), nil for the line as a whole.
    public var field: String?
    public var reason: String

    public init(field: String?, reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { field.map { "\($0): \(reason)" } ?? reason }

    /// A short stable category for summaries ("bad JSON", "missing field", ...).
    public var category: String {
        if field == nil { return reason.hasPrefix("invalid JSON") ? "invalid JSON" : "invalid line" }
        if reason.hasPrefix("missing") { return "missing \(field!)" }
        return "invalid \(field!.split(separator: ".").first.map(String.init) ?? field!)"
    }
}
