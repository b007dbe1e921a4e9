import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive donate

struct DonateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "donate",
        abstract: "Store one donation given by flags.",
        discussion: """
            Without --context focus=NAME the donation gets the Focus on at its date (proactive focus).
            Parameter values (--param NAME=VALUE):
              - a JSON number, boolean or string is that value: shots=2, iced=true, zip='"95014"';
              - @ID or @ID:DISPLAY is an entity: location=@cupertino:Cupertino;
              - a JSON object {"id":...,"display":...} is an entity too;
              - anything else is a string: item=latte.
            When the stored definitions type a parameter, the value is read as that type (location=sf is the entity sf \
            for an entity parameter) and a value the type cannot hold is refused. Context values (--context KEY=VALUE) are always strings. The date defaults to now, \
            written in this machine's UTC offset; a local time (--date 2026-11-20T07:15) or day is read on \
            the user's clock (their zone, else the offset of their latest donation). Without --user the \
            donation is the user "default"'s, and a note on standard error says so. Prints the stored donation as a JSON line.

            The user's live model learns it on its next read (predict, suggest, stack); no retraining. \
            Refused while recording is paused (proactive pause on). After storing, the retention \
            policy is applied (proactive retention). With --as-app A, --app must be A.

            Example:
              proactive donate --user u1 --app com.example.coffee \\
                --intent OrderCoffeeIntent \\
                --param item=latte --param size=large --param shots=2 \\
                --context focus=work --date 2026-11-20T07:15:00-08:00 --identifier order-1
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The donating app's bundle identifier.")
    var app: String

    @Option(help: "The intent class name ('open' for a plain app launch).")
    var intent: String

    @Option(name: .customLong("param"), help: ArgumentHelp("An intent parameter (repeatable).", valueName: "name=value"))
    var parameters: [String] = []

    @Option(name: .customLong("context"), help: ArgumentHelp("A context value such as focus=work (repeatable).", valueName: "key=value"))
    var contextValues: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("When it happened: \(DateArgument.help). Default: now.", valueName: "date"),
            transform: DateArgument.transform)
    var date: DateArgument?

    @Option(help: "The donation's own identifier (for deletion by identifier).")
    var identifier: String?

    @Option(help: "Group identifier (for deletion by group).")
    var group: String?

    @Option(help: "Whose history it is (without it: the user \"\(Donation.defaultUser)\", and a note says so).")
    var user: String?

    @Option(help: "How many identical donations this one stands for.")
    var count: Int = 1

    func validate() throws {
        _ = try makeDonation(now: Date(timeIntervalSince1970: 0), offset: 0)
    }

    func run() throws {
        let now = Date()
        // Without --context focus=..., the Focus on at the donation's date (manual or scheduled) is recorded.
        let engine = try storeOptions.openEngine(appMode: .scoped)
        try RecordingPolicy.requireRecording(engine)
        let when = try date?.read(engine, user: user ?? Donation.defaultUser, flag: "--date")
        var given = try makeDonation(now: now, offset: TimeZone.current.secondsFromGMT(for: now), when: when)
        if user == nil { printError("note: stored under user \"\(Donation.defaultUser)\" (no --user given)") }
        if let definition = try engine.definitions().definition(app: given.app, intent: given.intent) {
            given.parameters = try typed(given.parameters, by: definition)
        }
        let donation = try engine.donate(given)
        // An app reads back what it gave, not the owner's Focus the store added (apps may not read Focus).
        print(DonationLineCodec.encode(storeOptions.access.app == nil ? donation : given))
        try RecordingPolicy.applyRetention(engine, now: now)
    }

    // MARK: Building the donation

    /// The parameters typed by the intent's definition: `--param location=sf` is the entity `sf` when
    /// `location` is an entity, `shots=2` the integer 2 when `shots` is an int; a text the type cannot
    /// hold is refused, naming the parameter and its type. Undefined parameters keep their reading.
    func typed(_ values: [String: ParameterValue], by definition: IntentDefinition) throws -> [String: ParameterValue] {
        var typed = values
        for setting in parameters {
            guard let (name, text) = try? Self.split(setting, option: "--param"), let parameter = definition.parameter(named: name),
                  let value = values[name], !parameter.type.accepts(value) else { continue }
            guard let converted = parameter.type.value(fromArgument: text) else {
                throw ValidationError("--param \(name): \"\(text)\" does not fit its type \(parameter.type) (\(definition.name).\(name) in the stored definitions)")
            }
            typed[name] = converted
        }
        return typed
    }

    /// The donation the flags describe; `when` is the date read on the user's clock (nil: `now` at `offset`).
    func makeDonation(now: Date, offset: Int, when: Engine.ReadDate? = nil) throws -> Donation {
        var parameterValues: [String: ParameterValue] = [:]
        for setting in parameters {
            let (name, text) = try Self.split(setting, option: "--param")
            guard parameterValues[name] == nil else { throw ValidationError("--param \(name) is given twice") }
            parameterValues[name] = Self.parameterValue(text)
        }
        var context: [String: String] = [:]
        for setting in contextValues {
            let (key, value) = try Self.split(setting, option: "--context")
            guard context[key] == nil else { throw ValidationError("--context \(key) is given twice") }
            context[key] = value
        }
        for (option, value) in [("--app", app), ("--intent", intent), ("--user", user ?? "x"), ("--identifier", identifier ?? "x"), ("--group", group ?? "x")]
        where value.isEmpty {
            throw ValidationError("\(option) needs a non-empty value")
        }
        guard count >= 1 else { throw ValidationError("--count must be at least 1, found \(count)") }
        // An instant keeps the offset it was written with (Unix seconds: none); a local time or day takes the clock's.
        let utcOffset: Int?
        switch date?.written {
        case nil: utcOffset = offset
        case let .instant(_, written)?: utcOffset = written
        default: utcOffset = when?.utcOffset
        }
        return Donation(user: user ?? Donation.defaultUser, app: app, intent: intent, parameters: parameterValues,
                        date: when?.date ?? now, utcOffset: utcOffset,
                        identifier: identifier, group: group, context: context, count: count)
    }

    private static func split(_ setting: String, option: String) throws -> (String, String) {
        let parts = setting.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty else {
            throw ValidationError("\(option) wants NAME=VALUE, found \"\(setting)\"")
        }
        return (parts[0], parts[1])
    }

    /// Reads a parameter value by the rules in the discussion.
    static func parameterValue(_ text: String) -> ParameterValue {
        if text.hasPrefix("@"), text.count > 1 {
            let body = text.dropFirst()
            if let colon = body.firstIndex(of: ":") {
                return .entity(id: String(body[..<colon]), display: String(body[body.index(after: colon)...]))
            }
            return .entity(id: String(body), display: nil)
        }
        if let json = try? JSONParser.parse(text), let value = try? ParameterValue(json: json) {
            return value
        }
        return .string(text)
    }
}
