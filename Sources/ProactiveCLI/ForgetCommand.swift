import ArgumentParser
import Foundation
import ProactiveEngine

// MARK: - proactive forget

struct ForgetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Erase a user entirely: donations, feedback, shortcuts, timelines, settings.",
        discussion: """
            Deletes in one transaction every row the store holds for the user (donations, \
            feedback, relevant shortcuts, widget timelines, the time zone setting), overwrites \
            them on disk (secure_delete) and truncates the write-ahead log so no copy survives. \
            Suggestions are fitted from the store, so nothing learned from the user remains. \
            Prints what was erased; a user the store holds nothing for is an error (exit 1) that \
            lists the store's users. For the device owner only.

            Example:
              proactive forget --user u1
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The user to erase.")
    var user: String

    func validate() throws {
        if user.isEmpty { throw ValidationError("--user needs a non-empty value") }
    }

    func run() throws {
        let engine = try storeOptions.openEngine(.mustExist)
        let erased = try engine.forget(user: user)
        let total = erased.values.reduce(0, +)
        // Nothing held for the name (a typo, most often): said, with the store's users, and exit 1.
        guard total > 0 else {
            throw CommandFailure(description: "\(storeOptions.displayName): the store holds nothing for user \(user)"
                                 + (try engine.knownUsersPhrase()))
        }
        let details = erased.keys.sorted().map { "\($0) \(erased[$0]!)" }.joined(separator: ", ")
        print("forgot \(user): \(total) row\(total == 1 ? "" : "s") erased" + (details.isEmpty ? "" : " (\(details))"))
    }
}
