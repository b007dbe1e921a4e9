import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine
import ProactiveStore

// MARK: - proactive models

struct ModelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "Show the users' saved live models.",
        subcommands: [ModelsListCommand.self])
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
        let engine = Engine(database: try storeOptions.openDatabase(.mustExist), access: storeOptions.access)
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
            printError("no saved models in \(storeOptions.path)\(user.map { " for user \($0)" } ?? "") (proactive train saves them)")
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
