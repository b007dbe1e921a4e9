import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive stats

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Count stored donations per app, intent and user, and show their date span.",
        discussion: """
            "rows" are stored donations; "donations" adds up their counts (a row with "count": 3 \
            stands for three). --check also runs SQLite's integrity check (exit 1 when it finds \
            damage). --json prints one JSON object: rows, donations, first_date, last_date, \
            schema, apps, intents, users (with time_zone when configured), and integrity with --check. \
            With --as-app A only A's donations are counted.

            Example:
              proactive stats
              proactive stats --user u1 --after 2026-11-01 --json
              proactive stats --check
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var filter: FilterOptions

    @Flag(help: "Print JSON.")
    var json = false

    @Flag(help: "Run PRAGMA integrity_check on the store file.")
    var check = false

    @Option(help: "List at most this many apps, intents and users (0: all).")
    var top = 20

    func run() throws {
        let engine = try storeOptions.openEngine(.readOnly, appMode: .scoped)
        let report = try engine.storeReport(matching: try filter.filter(engine), checkIntegrity: check)
        let (stats, schema, timeZones, problems) = (report.statistics, report.schema, report.timeZones, report.integrityProblems)
        if json {
            print(JSONWriter.string(jsonReport(stats, schema: schema, timeZones: timeZones, problems: problems)))
        } else {
            print(textReport(stats, schema: schema, timeZones: timeZones, problems: problems))
        }
        if !problems.isEmpty { throw ExitCode.failure }
    }

    // MARK: Reports

    private func listed(_ tallies: [DonationStatistics.Tally]) -> ArraySlice<DonationStatistics.Tally> {
        top > 0 ? tallies.prefix(top) : tallies[...]
    }

    private static func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

    private static func format(_ date: Date?) -> String {
        date.map { Timestamp.format(secondsSince1970: $0.timeIntervalSince1970, utcOffsetSeconds: 0) } ?? "-"
    }

    func textReport(_ stats: DonationStatistics, schema: String, timeZones: [String: String], problems: [String]) -> String {
        var lines = [
            "store: \(storeOptions.displayName) (schema \(schema))",
            "\(Self.plural(stats.rows, "row")) standing for \(Self.plural(stats.donations, "donation"))",
            "dates: \(Self.format(stats.firstDate)) .. \(Self.format(stats.lastDate))",
        ]
        func section(_ title: String, _ tallies: [DonationStatistics.Tally], label: (DonationStatistics.Tally) -> String) {
            lines.append("\(title) (\(tallies.count)):")
            let shown = listed(tallies)
            let width = shown.map { label($0).count }.max() ?? 0
            for tally in shown {
                let name = label(tally)
                lines.append("  " + name + String(repeating: " ", count: width - name.count) + "  \(Self.plural(tally.rows, "row")), \(Self.plural(tally.donations, "donation"))")
            }
            if shown.count < tallies.count { lines.append("  ... \(tallies.count - shown.count) more (--top 0 lists all)") }
        }
        section("users", stats.byUser) { tally in tally.name + (timeZones[tally.name].map { " [\($0)]" } ?? "") }
        section("apps", stats.byApp) { $0.name }
        section("intents", stats.byIntent) { "\($0.app ?? "") \($0.name)" }
        if check {
            lines.append(problems.isEmpty ? "integrity: ok" : "integrity: \(problems.count) problems\n  " + problems.joined(separator: "\n  "))
        }
        return lines.joined(separator: "\n")
    }

    func jsonReport(_ stats: DonationStatistics, schema: String, timeZones: [String: String], problems: [String]) -> JSONValue {
        func number(_ value: Int) -> JSONValue { .number(Double(value), integer: Int64(value)) }
        func counts(_ tally: DonationStatistics.Tally) -> [(String, JSONValue)] {
            [("rows", number(tally.rows)), ("donations", number(tally.donations))]
        }
        var members: [(String, JSONValue)] = [
            ("store", .string(storeOptions.displayName)), ("schema", .string(schema)),
            ("rows", number(stats.rows)), ("donations", number(stats.donations)),
            ("first_date", stats.firstDate.map { .string(Self.format($0)) } ?? .null),
            ("last_date", stats.lastDate.map { .string(Self.format($0)) } ?? .null),
            ("users", .array(listed(stats.byUser).map { tally in
                .object([("user", .string(tally.name))] + counts(tally) + (timeZones[tally.name].map { [("time_zone", .string($0))] } ?? []))
            })),
            ("apps", .array(listed(stats.byApp).map { .object([("app", .string($0.name))] + counts($0)) })),
            ("intents", .array(listed(stats.byIntent).map { .object([("app", .string($0.app ?? "")), ("intent", .string($0.name))] + counts($0)) })),
        ]
        if check {
            members.append(("integrity", problems.isEmpty ? .string("ok") : .array(problems.map { .string($0) })))
        }
        return .object(members)
    }
}
