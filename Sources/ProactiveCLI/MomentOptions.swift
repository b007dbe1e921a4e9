import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine
import ProactiveStore

// MARK: - The model choice

/// `--model`, `--definitions` and `--timezone`: which live model, under which definitions, on which clock.
struct ModelChoiceOptions: ParsableArguments {
    @Option(help: "The model (\(ModelChoice.names.joined(separator: ", ")); default \(ModelChoice.defaultName)).")
    var model: String = ModelChoice.defaultName

    @Option(help: ArgumentHelp("Intent definitions (JSON) overlaying the stored ones: which donations are the same target, which intents configure widgets.",
                               valueName: "file"))
    var definitions: String?

    @Option(name: .customLong("timezone"), help: ArgumentHelp(
        "Read the user's clock in this IANA zone (default: the user's configured zone, else each donation's own offset).", valueName: "zone"))
    var timeZoneName: String?

    func validate() throws {
        do { try choice.validate() } catch { throw ValidationError("\(error)") }
    }

    var choice: ModelChoice { ModelChoice(name: model, timeZoneOverride: timeZoneName) }

    /// The engine over the store, with the `--definitions` overlay.
    func engine(_ store: StoreOptions, appMode: StoreOptions.AppMode = .refused) throws -> Engine {
        var engine = Engine(database: try store.openDatabase(.mustExist, appMode: appMode), access: store.access,
                            definitionsOverlay: try loadDefinitions(definitions).definitions)
        engine.skippedStoredData = { printError("warning: \($0)") }
        return engine
    }
}

// MARK: - The moment

/// "The moment" for `predict`, `suggest` and `stack`: `--user`, `--at`,
/// `--context` plus the model choice. Parsed once, the same way everywhere.
struct MomentOptions: ParsableArguments {
    @Option(help: "Whose model and history.")
    var user: String = Donation.defaultUser

    @Option(parsing: .unconditional,  // `--at -5` is a value (refused for its year), not a missing one
            help: ArgumentHelp("The moment: local time on the user's clock (2026-11-20T07:30), \(DateArgument.help). Default: now.",
                               valueName: "date"))
    var at: String?

    @Option(name: .customLong("context"), parsing: .singleValue,
            help: ArgumentHelp("Context in effect, such as focus=work (repeatable; without focus=, the Focus on at the moment).",
                               valueName: "key=value"))
    var contextValues: [String] = []

    @OptionGroup var model: ModelChoiceOptions

    func validate() throws {
        _ = try context()
        if let at, !Self.isLocal(at) {
            do { _ = try DateArgument.parse(at) } catch { throw ValidationError("--at: \(error)") }
        }
    }

    /// The `--context` values; a key given twice is an error.
    func context() throws -> [String: String] { try Self.parseContext(contextValues) }

    /// `KEY=VALUE` settings as a context; a key given twice is an error.
    static func parseContext(_ settings: [String]) throws -> [String: String] {
        var context: [String: String] = [:]
        for setting in settings {
            guard let equals = setting.firstIndex(of: "="), equals != setting.startIndex else {
                throw ValidationError("--context wants KEY=VALUE, found \"\(setting)\"")
            }
            let key = String(setting[..<equals])
            guard context[key] == nil else { throw ValidationError("--context \(key) is given twice") }
            context[key] = String(setting[setting.index(after: equals)...])
        }
        return context
    }

    /// `--at` as an instant, the offset of the user's clock then, and which clock that is: the user's
    /// zone (`--timezone`, else the configured one), else the offset of their latest donation. A wall
    /// time without an offset is read on that clock; an instant with an offset is the same instant
    /// whatever offset it was written in. Now when absent.
    func instant(_ engine: Engine, now: Date = Date()) throws -> (date: Date, offset: Int, clock: String) {
        let zoneName = model.timeZoneName
        guard let text = at else {
            let clock = try engine.clock(user: user, at: now, zoneOverride: zoneName)
            return (now, clock.offset, clock.description)
        }
        if Self.isLocal(text) {
            let padded = text.count == 16 ? text + ":00" : text
            let wall: Timestamp.Parsed
            do { wall = try Timestamp.parse(padded + "Z") } catch { throw ValidationError("--at: \(error)") }
            // The offset at the wall time, refined once (across a daylight-saving change).
            let asUTC = Date(timeIntervalSince1970: wall.secondsSince1970)
            var clock = try engine.clock(user: user, at: asUTC, zoneOverride: zoneName)
            clock = try engine.clock(user: user, at: asUTC.addingTimeInterval(-Double(clock.offset)), zoneOverride: zoneName)
            let instant = asUTC.addingTimeInterval(-Double(clock.offset))
            // On a zone's clock, a wall time inside a daylight-saving gap does not exist.
            let inZone = TimeZone(identifier: clock.description) != nil
            let offsetThen = try engine.clock(user: user, at: instant, zoneOverride: zoneName).offset
            guard !inZone || offsetThen == clock.offset else {
                throw ValidationError("--at: \(text) does not exist in \(clock.description) (the clocks skip it at a daylight-saving "
                                      + "change); give an offset")
            }
            return (instant, clock.offset, clock.description)
        }
        let parsed: DateArgument
        do { parsed = try DateArgument.parse(text) } catch { throw ValidationError("--at: \(error)") }
        let clock = try engine.clock(user: user, at: parsed.date, zoneOverride: zoneName)
        return (parsed.date, clock.offset, clock.description)
    }

    /// `clock: ...` for standard error, with the command that configures a zone when none is.
    static func clockLine(_ clock: String) -> String {
        "clock: \(clock)" + (clock.contains("no zone configured") ? "; `proactive users timezone set USER ZONE` sets one" : "")
    }

    /// `2026-11-20T07:30` or `2026-11-20T07:30:00`: a wall time without an offset.
    static func isLocal(_ text: String) -> Bool {
        text.count >= 16 && text.count <= 19 && text.dropFirst(10).first == "T"
            && !text.dropFirst(11).contains(where: { $0 == "Z" || $0 == "+" || $0 == "-" })
    }

}
