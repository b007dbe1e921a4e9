import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive focus people

struct FocusPeopleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "people",
        abstract: "Suggest people to add to a Focus's allowed-notifications list, from messaging donations.",
        discussion: """
            Messages are donations of intents with kind "sendMessage" (in the stored definitions \
            or --definitions), or named *SendMessage* when undefined; the recipient is the \
            "recipient" parameter (or a Person entity). The Focus of a message is its \
            context.focus, else the Focus timeline's at its date. For person p and Focus f, with \
            additive smoothing a over K Focus buckets (every Focus, plus "none"):
              share = (n(p,f) + a) / (n(p) + a*K)     base = (n(f) + a) / (N + a*K)
              lift = share / base                     pmi = log2(lift)
            A person is suggested when n(p,f) >= --min-support and lift >= --min-lift.

            Example:
              proactive focus people --user me
              proactive focus people --user me --focus work --all
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Whose donations (default: the store's only user).")
    var user: String?

    @Option(help: "Only this Focus.")
    var focus: String?

    @Option(help: "Intent definitions (JSON) overlaying the stored ones.")
    var definitions: String?

    @Option(help: "Minimum messages to the person in the Focus.")
    var minSupport: Double = 3

    @Option(help: "Minimum smoothed lift.")
    var minLift: Double = 1.25

    @Option(help: "Additive smoothing a.")
    var smoothing: Double = 1

    @Flag(help: "Also list the pairs below the thresholds.")
    var all = false

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        guard minSupport >= 0, minLift >= 0, smoothing > 0 else { throw ValidationError("--min-support and --min-lift must be >= 0, --smoothing > 0") }
    }

    func run() throws {
        var engine = try storeOptions.openEngine(.mustExist)
        engine.definitionsOverlay = try loadDefinitions(definitions).definitions
        let rows: [PersonFocusAssociation]
        do {
            rows = try engine.focusPeople(user: user, focus: focus, all: all,
                                          configuration: .init(smoothing: smoothing, minimumSupport: minSupport, minimumLift: minLift)).rows
        } catch let error as EngineError where error.code == .invalidRequest && user == nil {
            throw ValidationError(error.description + " with --user")
        }
        if json {
            print(JSONWriter.string(.array(rows.map(\.json))))
            return
        }
        if rows.isEmpty { print("no one to suggest (min support \(minSupport), min lift \(minLift))"); return }
        print("focus\tperson\tmessages\tto person\tin focus\ttotal\tshare\tbase\tlift\tpmi\tsuggested")
        for row in rows {
            let numbers = [row.share, row.baseRate, row.lift, row.pmi].map { String(format: "%.3f", $0) }
            print(([row.focus, "\(row.display) <\(row.person)>"] + [row.messages, row.messagesToPerson, row.messagesInFocus, row.totalMessages].map { "\(Int($0))" }
                   + numbers + [row.isSuggested ? "yes" : "no"]).joined(separator: "\t"))
        }
    }
}
