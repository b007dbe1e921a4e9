import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveRanking
import ProactiveStore

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
        let engine = try FocusSession(storeOptions, mode: .mustExist, appMode: .scoped).engine()
        let apps = app.map { [$0] } ?? engine.filters.keys.sorted()
        if let app, engine.filter(app: app) == nil { throw CommandFailure(description: "\(app) has not declared a Focus filter") }
        var reports: [JSONValue] = []
        for app in apps {
            let filter = engine.filter(app: app)!
            let focuses = Set(engine.configuredFocuses(app: app) + engine.appContextFocuses(app: app))
                .filter { focus == nil || $0 == FocusName.normalize(focus!) }.sorted()
            var perFocus: [(String, JSONValue)] = []
            if !json { print("\(app): \(filter.title)\(filter.description.isEmpty ? "" : " -- \(filter.description)")") }
            for name in focuses {
                let display = filter.displayRepresentation(configured: engine.configuredValues(app: app, focus: name))
                let predicate = engine.activePredicate(app: app, focus: name)
                let badge = engine.appContext(app: app, focus: name)?.badgeCount
                if json {
                    var members: [(String, JSONValue)] = [("primary", .string(display.primary)), ("secondary", .string(display.secondary)),
                                                          ("values", .object(engine.configuredValues(app: app, focus: name).sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) }))]
                    if let predicate { members.append(("predicate", .string(predicate.description))) }
                    if let badge { members.append(("badge", .number(Double(badge), integer: Int64(badge)))) }
                    perFocus.append((name, .object(members)))
                } else {
                    var line = "  \(name): \(display.primary) = \(display.secondary)"
                    if let predicate { line += "; predicate \(predicate)" }
                    if let badge { line += "; badge \(badge)" }
                    print(line)
                }
            }
            if !json && focuses.isEmpty { print("  (not configured in any Focus\(focus == nil ? "" : " named \(FocusName.normalize(focus!))"))") }
            if json {
                guard case let .object(declaration) = filter.json else { continue }
                reports.append(.object(declaration + [("focuses", .object(perFocus))]))
            }
        }
        if json { print(JSONWriter.string(.array(reports))) }
    }
}
