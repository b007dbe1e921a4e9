import ArgumentParser
import ProactiveEngine
import ProactiveStore

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
            Prints how many donations were deleted. With --as-app A only A's donations are deleted \
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

    func validate() throws {
        _ = try deletion()
    }

    /// The deletion the flags describe (dates read in `stores`; nil: checked without reading them).
    func deletion(_ stores: ScopedStores? = nil) throws -> DonationDeletion {
        let scoped = !identifier.isEmpty || group != nil
        if scoped {
            guard let app = filter.app else {
                throw ValidationError("--identifier and --group delete one app's donations: add --app BUNDLE_ID")
            }
            guard identifier.isEmpty || group == nil else { throw ValidationError("give --identifier or --group, not both") }
            guard filter.user == nil, filter.after == nil, filter.before == nil, !all else {
                throw ValidationError("--identifier and --group combine only with --app")
            }
            if let group { return .group(group, app: app) }
            guard identifier.allSatisfy({ !$0.isEmpty }) else { throw ValidationError("--identifier needs a non-empty value") }
            return .identifiers(identifier, app: app)
        }
        if all {
            guard filter.isEmpty else { throw ValidationError("--all deletes everything; drop it or drop the other criteria") }
            return .matching(.everything)
        }
        guard !filter.isEmpty else {
            throw ValidationError("say what to delete (--identifier, --group, --app, --user, --after, --before), or --all to empty the store")
        }
        guard let stores else { return .matching(.everything) }
        return .matching(try filter.filter(stores))
    }

    func run() throws {
        let stores = try storeOptions.openScoped(.mustExist)
        let deleted = try stores.donations.delete(try deletion(stores))
        if deleted > 0, !(try Engine(database: stores.database).finishErasure()) {
            ImportProgressPrinter.writeError("another process kept the write-ahead log open: run proactive compact to erase the deleted rows' old copies\n")
        }
        print("deleted \(deleted) donation\(deleted == 1 ? "" : "s")")
    }
}
