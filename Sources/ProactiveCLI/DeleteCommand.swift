import ArgumentParser
import Foundation
import ProactiveEngine

// MARK: - proactive delete

struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete donations the way apps do: by identifier, by group, by app, by user or by date.",
        discussion: """
            --identifier and --group act for one app and need --app: deleting group "san-diego" \
            for one app never touches another app's "san-diego". --app, --user, --after and \
            --before combine (all must match; dates select [after, before)). A delete with no \
            criterion is refused unless --all is given. Deleted rows are overwritten on disk \
            (secure_delete) and the write-ahead log is truncated, so no copy stays in the files. \
            Prints how many donations were deleted. A --user or --app the store holds no donations \
            of is an error (exit 1) that lists the store's users or apps (not with --identifier or \
            --group: those stay idempotent, as an app's deletes are). With --as-app A only A's donations are deleted \
            (--app, --identifier and --group for another app are refused; --all means all of A's).

            Example:
              proactive delete --app com.example.weather --group san-diego
              proactive delete --app com.example.weather --identifier w-1 --identifier w-2
              proactive delete --user u1 --before 2026-01-01

            A day (--before 2026-01-01) or a local time (2026-01-01T08:00) is read on the \
            --user's clock: their zone (proactive users timezone set), else the offset of their \
            latest donation; without --user, in UTC. The reading is printed on standard error.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var filter: FilterOptions

    @Option(help: "Delete the app's donations with this identifier (repeatable; needs --app).")
    var identifier: [String] = []

    @Option(help: "Delete the app's donations in this group (needs --app).")
    var group: String?

    @Flag(help: "Delete every donation in the store.")
    var all = false

    /// Checks the flags before the store is opened: the dates, not read yet, stand in as the widest instants.
    func validate() throws {
        _ = try checked { try Engine.deletion(request(after: filter.after.map { _ in .distantPast },
                                                      before: filter.before.map { _ in .distantFuture }), spelling: Self.spelling) }
    }

    func request(after: Date?, before: Date?) -> DeletionRequest {
        DeletionRequest(identifiers: identifier, group: group, app: filter.app, user: filter.user, after: after, before: before, all: all)
    }

    /// `body`'s refusal of the flags as a usage error.
    func checked<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as EngineError where error.code == .invalidRequest { throw ValidationError(error.description) }
    }

    /// How the rules name a criterion: the flag.
    static func spelling(_ field: DeletionRequest.Field) -> String { "--" + field.rawValue }

    func run() throws {
        let engine = try storeOptions.openEngine(.mustExist, appMode: .scoped)
        let request = request(after: try filter.after?.read(engine, user: filter.user, flag: "--after").date,
                              before: try filter.before?.read(engine, user: filter.user, flag: "--before").date)
        let outcome = try checked { try engine.delete(request, spelling: Self.spelling) }
        if outcome.deleted == 0, identifier.isEmpty, group == nil {
            // Nothing matched: a --user or --app the store does not hold is named, with what it holds. Deletes by
            // --identifier or --group stay idempotent, as an app's are (deleting again deletes 0).
            do { try engine.requireDonations(user: filter.user, app: filter.app) } catch let error as EngineError where error.code == .noDonations {
                throw CommandFailure(description: "\(storeOptions.displayName): \(error.description); nothing was deleted")
            }
        }
        if !outcome.logTruncated {
            switch storeOptions.location {
            case .file:
                ImportProgressPrinter.writeError("another process kept the write-ahead log open: run proactive compact to erase the deleted rows' old copies\n")
            case .database:
                ImportProgressPrinter.writeError("PostgreSQL frees a deleted row's space without overwriting it: run proactive compact (VACUUM FULL) to erase the old copies from the tables' files\n")
            }
        }
        print("deleted \(outcome.deleted) donation\(outcome.deleted == 1 ? "" : "s")")
    }
}
