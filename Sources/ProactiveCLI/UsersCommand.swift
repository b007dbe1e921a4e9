import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive users

struct UsersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Per-user settings: the time zone a user's clock is read in.",
        subcommands: [UsersTimeZoneCommand.self])
}

struct UsersTimeZoneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timezone",
        abstract: "Show, set or clear the IANA time zone a user's clock is read in.",
        discussion: """
            A user's local clock (time of day, weekday) decides what the models learn and how --at without \
            an offset is read. With a zone set, every donation and moment of the user is read in it. Without \
            one, each donation is read in the offset it was written in, and a moment in the offset of the \
            user's latest donation. Setting or clearing a zone refits the user's model on its next use.

            Examples:
              proactive users timezone show
              proactive users timezone set me America/Los_Angeles
              proactive users timezone clear me
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "show, set or clear.")
    var action: String

    @Argument(help: "The user (show: all users when left out).")
    var user: String?

    @Argument(help: "The IANA zone (set only), e.g. Europe/Paris.")
    var zone: String?

    func validate() throws {
        switch action {
        case "show": guard zone == nil else { throw ValidationError("show takes at most a user") }
        case "set":
            guard let user, !user.isEmpty, let zone else { throw ValidationError("set wants a user and a zone: users timezone set me Europe/Paris") }
            _ = try parseTimeZone(zone, argument: "zone")
        case "clear": guard user != nil, zone == nil else { throw ValidationError("clear wants one user: users timezone clear me") }
        default: throw ValidationError("unknown action \"\(action)\"; use show, set or clear")
        }
    }

    func run() throws {
        let store = try storeOptions.openEngine(action == "show" ? .mustExist : .createIfMissing)
        switch action {
        case "set":
            try store.setTimeZone(zone, forUser: user!)
            print("\(user!): \(zone!)")
        case "clear":
            try store.setTimeZone(nil, forUser: user!)
            print("\(user!): no zone (each donation's own offset)")
        default:
            let users = try user.map { [$0] } ?? store.users()
            for name in users {
                print("\(name): \(try store.timeZone(forUser: name) ?? "no zone (each donation's own offset)")")
            }
        }
    }
}
