import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

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
        // A store this process cannot write (a read-only file or mount) is read as it is; no state is saved.
        var engine = try store.openEngine(store.isReadOnlyFile ? .readOnly : .oneConnection, appMode: appMode).warningAboutSkippedData()
        engine.definitionsOverlay = try loadDefinitions(definitions).definitions
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
            help: ArgumentHelp("The moment: a local time on the user's clock (2026-11-20T07:30), an instant with an offset "
                               + "(2026-11-20T07:30:00-08:00) or Unix seconds; a bare day is refused (it names no time). Default: now.",
                               valueName: "date"))
    var at: String?

    @Option(name: .customLong("context"), parsing: .singleValue,
            help: ArgumentHelp("Context in effect, such as focus=work (repeatable; without focus=, the Focus the user's schedules put on at the moment, else no Focus).",
                               valueName: "key=value"))
    var contextValues: [String] = []

    @OptionGroup var model: ModelChoiceOptions

    func validate() throws {
        _ = try context()
        if let at {
            do { _ = try Engine.parseMoment(at) } catch { throw ValidationError("--at: \(error.reason)") }
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

    /// `--at` as an instant, the offset of the user's clock then, and which clock that is
    /// (`Engine.readDate`): the user's zone (`--timezone`, else the configured one), else the offset of
    /// their latest donation. A wall time without an offset is read on that clock; an instant with an
    /// offset is the same instant whatever offset it was written in. Now when absent. A bare day is
    /// refused: a moment needs a time of day.
    func instant(_ engine: Engine, now: Date = Date()) throws -> (date: Date, offset: Int, clock: String) {
        let reading: Engine.ReadDate
        do { reading = try engine.readMoment(at, user: user, zoneOverride: model.timeZoneName, now: now, field: "--at") } catch let error as DonationLineError {
            throw ValidationError("--at: \(error.reason)")
        }
        return (reading.date, reading.utcOffset, reading.clock)
    }

    /// `clock: ...` for standard error, with the command that configures a zone when none is.
    static func clockLine(_ clock: String) -> String {
        "clock: \(clock)" + (clock.contains("no zone configured") ? "; `proactive users timezone set USER ZONE` sets one" : "")
    }
}
