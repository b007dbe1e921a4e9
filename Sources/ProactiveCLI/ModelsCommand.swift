import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive models

struct ModelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "Show the users' saved live models.",
        subcommands: [ModelsListCommand.self, ModelsExportWeightsCommand.self])
}

struct ModelsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the saved live model states: what each learned and what it has not folded in yet.",
        discussion: """
            One line per saved state (user and model): the donations it learned, the changes stored since \
            it was saved that the next query folds in (new donations, deletions of donations it learned), \
            the user's stored donations, when it was trained and saved, and its size. A state agrees with \
            the store when learned + new - deleted = stored; a line that does not is marked INCONSISTENT \
            and the exit status is 1. Reads only: nothing is caught up or saved.

            Example:
              proactive models list
              proactive models list --user me --json
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Only this user's states.")
    var user: String?

    @Flag(help: "Print a JSON array instead of a table.")
    var json = false

    func run() throws {
        let engine = try storeOptions.openEngine(.mustExist)
        let statuses = try engine.modelStatuses(user: user)
        if json {
            func number(_ value: Int) -> JSONValue { .number(Double(value), integer: Int64(value)) }
            print(JSONWriter.string(.array(statuses.map { status in
                .object([("user", .string(status.user)), ("model", .string(status.name)), ("learned", number(status.learned)),
                         ("pending_new", number(status.pendingNew)), ("pending_deleted", number(status.pendingDeleted)),
                         ("stored", number(status.stored)), ("consistent", .bool(status.isConsistent)),
                         ("trained_at", .string(DateFormatting.utc(status.trainedAt))), ("saved_at", .string(DateFormatting.utc(status.savedAt))),
                         ("bytes", number(status.bytes))])
            })))
        } else if statuses.isEmpty {
            printError("no saved models in \(storeOptions.displayName)\(user.map { " for user \($0)" } ?? "") (proactive train saves them)")
        } else {
            print("user\tmodel\tlearned\tpending\tstored\ttrained\tsaved\tbytes")
            for status in statuses {
                print([status.user, status.name, "\(status.learned)", "+\(status.pendingNew) -\(status.pendingDeleted)",
                       "\(status.stored)\(status.isConsistent ? "" : " INCONSISTENT")", DateFormatting.utc(status.trainedAt),
                       DateFormatting.utc(status.savedAt), "\(status.bytes)"].joined(separator: "\t"))
            }
        }
        if statuses.contains(where: { !$0.isConsistent }) { throw ExitCode.failure }
    }
}

struct ModelsExportWeightsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-weights",
        abstract: "Write each user's linear scorer at a moment (W and x), for a peer implementation to serve.",
        discussion: """
            For each user (every user, or --user), the logistic part of the live model (the blend's, or \
            the logistic model itself): W, targets x columns, and the moment's feature vector x, so that \
            W . x is each target's log-score. Writes DIR/index.json ([{"user", "targets": [...], \
            "columns", "file"}]) and per user DIR/N.f64: W row-major, then x, little-endian float64. \
            Users whose model has no logistic part yet (too few donations) are skipped and counted.

            Example:
              proactive models export-weights --at 2026-11-20T08:30:00-08:00 -o weights/
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Only these users (repeatable).")
    var user: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("The moment: \(DateArgument.help).", valueName: "date"), transform: DateArgument.transform)
    var at: DateArgument

    @Option(name: [.short, .customLong("output")], help: "The directory to write (created).")
    var output: String

    func run() throws {
        let engine = try storeOptions.openEngine(.mustExist)
        let users = user.isEmpty ? try engine.users() : user
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        var index: [JSONValue] = []
        var skipped = 0
        for name in users {
            let exported: LinearWeights
            let moment = try at.read(engine, user: name, flag: "--at")
            do { exported = try engine.linearWeights(user: name, at: moment.date, utcOffset: moment.utcOffset) } catch let error as EngineError
                where error.code == .invalidRequest || error.code == .noDonations {
                skipped += 1
                continue
            }
            let file = "\(index.count).f64"
            var bytes = Data(capacity: (exported.weights.count + exported.x.count) * 8)
            for value in exported.weights + exported.x { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
            let path = (output as NSString).appendingPathComponent(file)
            do { try bytes.write(to: URL(fileURLWithPath: path)) } catch { throw CommandFailure(description: "\(path): cannot be written (\(error.localizedDescription))") }
            index.append(.object([("user", .string(name)), ("targets", .array(exported.targets.map { .string($0) })),
                                  ("columns", .number(Double(exported.columns), integer: Int64(exported.columns))), ("file", .string(file))]))
        }
        let path = (output as NSString).appendingPathComponent("index.json")
        do { try Data(JSONWriter.string(.array(index)).utf8).write(to: URL(fileURLWithPath: path)) } catch {
            throw CommandFailure(description: "\(path): cannot be written (\(error.localizedDescription))")
        }
        printError("exported \(index.count) users to \(output)\(skipped > 0 ? "; \(skipped) skipped (no logistic part)" : "")")
    }
}
