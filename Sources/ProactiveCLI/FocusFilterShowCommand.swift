import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive focus filter show

struct FocusFilterShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show Focus filters: declarations and, per Focus, the display representation.",
        discussion: """
            The display representation lists the parameters that have a value (primary) and \
            their values (secondary): required ones always, optional ones only when set. With \
            --json: one object per app with title, description, parameters (the declaration) \
            and focuses: {FOCUS: {primary, secondary, values, predicate, badge}}.

            Example:
              proactive focus filter show
              proactive focus filter show --app com.example.mail --focus personal --json
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Only this app's filter.")
    var app: String?

    @Option(help: "Only this Focus.")
    var focus: String?

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        if let app { try storeOptions.access.require(app: app, to: "read the Focus filter of") }
        let engine = try storeOptions.openEngine(.mustExist, appMode: .scoped)
        let reports: [JSONValue]
        do { reports = try engine.focusFilterReports(app: app, focus: focus) } catch let error as EngineError {
            throw CommandFailure(description: error.description)
        }
        if json { print(JSONWriter.string(.array(reports))); return }
        for report in reports {
            guard case let .string(app)? = report["app"], case let .string(title)? = report["title"] else { continue }
            let description = report["description"].flatMap { if case let .string(text) = $0 { text } else { nil } } ?? ""
            print("\(app): \(title)\(description.isEmpty ? "" : " -- \(description)")")
            guard case let .object(focuses)? = report["focuses"], !focuses.isEmpty else {
                print("  (not configured in any Focus\(focus == nil ? "" : " named \(FocusName.normalize(focus!))"))")
                continue
            }
            for (name, entry) in focuses {
                var line = "  \(name): \(text(entry["primary"])) = \(text(entry["secondary"]))"
                if let predicate = entry["predicate"] { line += "; predicate \(text(predicate))" }
                if case let .number(_, badge?)? = entry["badge"] { line += "; badge \(badge)" }
                print(line)
            }
        }
    }

    private func text(_ value: JSONValue?) -> String {
        if case let .string(text)? = value { return text }
        return ""
    }
}
