import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveModels
import ProactiveStore

// MARK: - proactive predict

/// Ranks one user's targets at a moment with the saved model (or one trained on the fly).
struct PredictCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predict",
        abstract: "Rank what a user most likely wants at a moment, with probabilities and why.",
        discussion: """
            Uses the user's saved model (see `train`); without one, or when the user's donations changed \
            since it was saved, the model is trained on the fly and a note says so. --at without an offset \
            is the user's local time (their configured zone, or --timezone); the moment's recent history is \
            the user's donations before it.

            Example:
              proactive predict --user u1 --at "2026-11-20T07:30" --context focus=work -k 4
              proactive predict --user u1 --at 2026-11-20T21:00:00-08:00 --json
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Whose model to use.")
    var user: String = Donation.defaultUser

    @Option(parsing: .unconditional, help: "The moment: local time (2026-11-20T07:30), ISO 8601 with an offset, or Unix seconds (default: now).")
    var at: String?

    @Option(parsing: .singleValue, help: ArgumentHelp("Context in effect, key=value (repeatable).", valueName: "key=value"))
    var context: [String] = []

    @Option(name: .short, parsing: .unconditional, help: "How many targets to show.")
    var k: Int = 4

    @OptionGroup var modelOptions: ModelOptions

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func validate() throws {
        guard k >= 1 else { throw ValidationError("-k must be at least 1") }
        _ = try parsedContext()
    }

    func parsedContext() throws -> [String: String] {
        var result: [String: String] = [:]
        for item in context {
            guard let equals = item.firstIndex(of: "="), equals != item.startIndex else {
                throw ValidationError("--context: \"\(item)\" is not key=value")
            }
            result[String(item[..<equals])] = String(item[item.index(after: equals)...])
        }
        return result
    }

    func run() async throws {
        let database = try storeOptions.openDatabase(.mustExist)
        let session = try ModelSession.load(database: database, user: user, definitions: modelOptions.definitions,
                                           zoneOverride: modelOptions.timeZoneName)
        guard !session.donations.isEmpty else { throw CommandFailure(description: "user \(user) has no donations in \(storeOptions.path)") }
        let (date, offset) = try Self.parseMoment(at, zone: session.zone)
        let (fitted, note) = try model(for: session, database: database)
        let recent = Array(session.training.events.filter { $0.date < date }.suffix(16))
        let moment = Moment(date: date, utcOffset: offset, context: try parsedContext(), recent: recent)
        let top = fitted.top(k, at: moment)
        let explainer = fitted as? any ExplainableModel
        let rows = top.map { scored in
            (scored, explainer?.reasons(for: scored.target, at: moment, describe: session.summary, limit: 3) ?? [])
        }
        let when = Timestamp.format(secondsSince1970: date.timeIntervalSince1970, utcOffsetSeconds: offset ?? 0)
        if json {
            print(JSONWriter.string(.object([
                ("user", .string(user)), ("at", .string(when)), ("model", .string(fitted.name)),
                ("context", .object(moment.context.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
                ("note", note.map(JSONValue.string) ?? .null),
                ("suggestions", .array(rows.map { scored, reasons in
                    .object([("target", .string(scored.target.rawValue)), ("summary", .string(session.summary(of: scored.target))),
                             ("probability", .number(scored.probability, integer: nil)),
                             ("why", .array(reasons.map { .string($0.text) }))])
                })),
            ])))
            return
        }
        if let note { printError("note: \(note)") }
        let contextText = moment.context.isEmpty ? "" : " (" + moment.context.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            .joined(separator: ", ") + ")"
        print("Top \(rows.count) for \(user) at \(when)\(contextText), model \(fitted.name):")
        for (position, row) in rows.enumerated() {
            let why = row.1.isEmpty ? "" : " -- " + row.1.map(\.text).joined(separator: ", ")
            print(String(format: "%2d. %@  %.3f%@", position + 1, session.summary(of: row.0.target), row.0.probability, why))
        }
    }

    /// The saved model when it is readable and current, else one trained now (with a note why).
    func model(for session: ModelSession, database: ProactiveDatabase) throws -> (any PersistentModel, String?) {
        let store = SQLiteModelStore(database: database)
        let reason: String
        let model = modelOptions.model
        if let saved = try store.load(user: user, name: model) {
            do {
                let loaded = try ModelArchive.decodeAny(saved.bytes)
                if session.isCurrent(saved) { return (loaded, nil) }
                reason = "the saved \(model) model predates the user's latest donations"
            } catch {
                reason = "the saved \(model) model is unreadable (\(error))"
            }
        } else {
            reason = "no saved \(model) model for user \(user)"
        }
        return (try session.fit(model), "\(reason); trained on the fly (run `proactive train --user \(user)` to save one)")
    }

    /// `--at`: local wall time in `zone` when it has no offset ("2026-11-20T07:30"), else as `DateArgument`.
    /// - Returns: the instant and the offset to read it in.
    static func parseMoment(_ text: String?, zone: TimeZone?) throws -> (Date, Int?) {
        guard let text else {
            let now = Date()
            return (now, zone?.secondsFromGMT(for: now) ?? 0)
        }
        let isLocal = text.count >= 16 && text.count <= 19 && text.dropFirst(10).first == "T"
            && !text.dropFirst(11).contains(where: { $0 == "Z" || $0 == "+" || $0 == "-" })
        if isLocal {
            let padded = text.count == 16 ? text + ":00" : text
            let wall: Timestamp.Parsed
            do { wall = try Timestamp.parse(padded + "Z") } catch { throw ValidationError("--at: \(error)") }
            guard let zone else { return (Date(timeIntervalSince1970: wall.secondsSince1970), 0) }
            // The offset at the wall time, refined once across a daylight-saving change.
            var offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: wall.secondsSince1970))
            offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: wall.secondsSince1970 - Double(offset)))
            let instant = Date(timeIntervalSince1970: wall.secondsSince1970 - Double(offset))
            guard zone.secondsFromGMT(for: instant) == offset else {
                throw ValidationError("--at: \(text) does not exist in \(zone.identifier) (the clocks skip it at a daylight-saving change); give an offset")
            }
            return (instant, offset)
        }
        let parsed: DateArgument
        do { parsed = try DateArgument.parse(text) } catch { throw ValidationError("--at: \(error)") }
        return (parsed.date, zone?.secondsFromGMT(for: parsed.date) ?? parsed.utcOffset)
    }
}
