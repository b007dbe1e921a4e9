import ProactiveCore

// MARK: - Widget identity

/// The intent (and its parameter values) that configures an intent-configured widget.
///
/// A weather widget configured for Cupertino is
/// `WidgetConfiguration(intent: "CheckWeatherIntent", parameters: ["location": .entity(id: "cupertino", display: "Cupertino")])`.
/// When the user donates that same intent with those parameters, predictions of
/// the donation drive the widget (docs/DOMAIN.md 4.3).
///
/// Two configurations are equal when their keys are: the same intent and, per parameter, the
/// same `keyText` (entities by id, whatever their display; a bare string `"sf"` is the entity
/// `sf`), so a widget declared one way and configured by donations the other is one widget.
public struct WidgetConfiguration: Sendable, Hashable {
    public var intent: String
    public var parameters: [String: ParameterValue]

    public init(intent: String, parameters: [String: ParameterValue] = [:]) {
        self.intent = intent
        self.parameters = parameters
    }

    public static func == (lhs: WidgetConfiguration, rhs: WidgetConfiguration) -> Bool {
        lhs.intent == rhs.intent && lhs.parameters.count == rhs.parameters.count
            && lhs.parameters.allSatisfy { name, value in rhs.parameters[name]?.keyText == value.keyText }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(intent)
        var parameters = 0  // order-independent: a dictionary's order is not its content
        for (name, value) in self.parameters {
            var one = Hasher()
            one.combine(name)
            one.combine(value.keyText)
            parameters ^= one.finalize()
        }
        hasher.combine(parameters)
    }
}

/// One widget a stack can show: an app's widget kind plus, for intent-configured
/// widgets, its configuration. Two widgets of the same kind with different
/// configurations are different widgets (two weather widgets for two cities).
///
/// Text form (`description`, also the stored key):
/// `com.example.weather/forecast` for a static widget,
/// `com.example.weather/forecast[CheckWeatherIntent(location=cupertino)]` for a configured one.
public struct WidgetID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The bundle identifier of the app that provides the widget.
    public var app: String
    /// The widget kind (`widgetKind`), unique within the app.
    public var kind: String
    /// The configuring intent; nil for a static widget.
    public var configuration: WidgetConfiguration?

    public init(app: String, kind: String, configuration: WidgetConfiguration? = nil) {
        self.app = app
        self.kind = kind
        self.configuration = configuration
    }

    /// The stable text form (see the type's documentation).
    public var key: String {
        var text = app + "/" + kind
        if let configuration {
            // The target-key grammar escapes names and values; reuse it for the bracketed part.
            let target = TargetKey(app: "", intent: configuration.intent, parameters: configuration.parameters).rawValue
            text += "[" + target.dropFirst() + "]"
        }
        return text
    }

    public var description: String { key }

    /// A short name for tables and charts: the kind's last two dot-separated
    /// components, plus the configuration's parameter display values
    /// (`weather.forecast (Cupertino)` for `com.example.weather.forecast`).
    public var displayName: String {
        let name = kind.split(separator: ".").suffix(2).joined(separator: ".")
        guard let configuration, !configuration.parameters.isEmpty else { return name }
        let values = configuration.parameters.keys.sorted().map { configuration.parameters[$0]!.displayText }
        return name + " (" + values.joined(separator: ", ") + ")"
    }

    public static func < (lhs: WidgetID, rhs: WidgetID) -> Bool { lhs.key < rhs.key }

    /// The target whose predictions drive this widget: its configuration intent
    /// resolved like a donation of that intent (nil for a static widget).
    public func configurationTarget(resolver: TargetResolver) -> Target? {
        guard let configuration else { return nil }
        return resolver.target(app: app, intent: configuration.intent, parameters: configuration.parameters)
    }

    /// Whether `name` designates this widget on a command line: the full key,
    /// `app/kind`, the kind, or the kind's last dot-separated component (case-insensitive).
    public func matches(name: String) -> Bool {
        if name == key || name == kind || name == app + "/" + kind { return true }
        let lowered = name.lowercased()
        if kind.lowercased() == lowered { return true }
        if let last = kind.split(separator: ".").last, last.lowercased() == lowered { return true }
        return false
    }
}
