import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveStore

// MARK: - proactive import

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import donation logs into the store.",
        discussion: """
            Reads each FILE (JSON Lines, one donation per line, see FORMATS.md; '-' reads standard \
            input) in constant memory and stores it in transactions of --batch-size donations. \
            A bad line is reported as FILE:LINE: field: reason on standard error and skipped; the \
            good lines around it are kept. With --strict the first bad line stops the import and \
            nothing from that file is stored (earlier files stay).

            Re-importing is safe for donations with an identifier: those already stored (same app \
            and identifier) are skipped and counted as "already stored". Donations without an \
            identifier are stored again.

            While recording is paused (proactive pause on) nothing is imported. After the import the \
            retention policy is applied: donations older than their app's window (default 28 days, \
            proactive retention) are erased again and counted on standard error. With --as-app A \
            every donation must be A's (app mode); another app's donation stops the import.

            Exit status: 0 when every line was stored or already stored; 2 when the import finished \
            but some lines were rejected; 1 when a strict import stopped or an error occurred.

            --format android-usage and --format knowledgec read a device's SQLite database (Android \
            Digital Wellbeing app_usage, Apple knowledgeC.db); what the reader kept, dropped and skipped, \
            and why, goes to standard error. A malformed row is named and skipped (--strict: stops).

            Example:
              proactive import donations.jsonl --user-timezone u1=America/New_York
              proactive import --format android-usage app_usage --timezone America/New_York --user pixel
              proactive import --strict --store /tmp/p.sqlite a.jsonl b.jsonl
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("Donation logs to import ('-' for standard input).", valueName: "file"))
    var files: [String]

    @Option(help: ArgumentHelp(stringLiteral: LogFormat.help))
    var format: LogFormat = .jsonl

    @OptionGroup(title: "Device logs") var deviceLog: DeviceLogOptions

    @Flag(help: "Stop at the first bad line and store nothing from that file.")
    var strict = false

    @Option(help: "Donations per transaction.")
    var batchSize = ImportOptions.defaultBatchSize

    @Option(help: ArgumentHelp(
        "Read a user's donations on this IANA time zone's clock instead of each date's offset (repeatable).",
        valueName: "user=zone"))
    var userTimezone: [String] = []

    @Option(help: "Progress on standard error: auto (a live line on a terminal), log (a line per committed batch), none.")
    var progress: ProgressMode = .auto

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("name at least one file to import") }
        guard batchSize >= 1 else { throw ValidationError("--batch-size must be at least 1, found \(batchSize)") }
        _ = try timeZoneSettings()
        try deviceLog.check(format: format, timeZoneForJSONLines: false)
    }

    /// `--user-timezone` values as (user, zone) pairs.
    func timeZoneSettings() throws -> [(user: String, zone: String)] {
        try userTimezone.map { setting in
            let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, TimeZone(identifier: parts[1]) != nil else {
                throw ValidationError("--user-timezone wants USER=ZONE with an IANA zone such as u1=America/New_York, found \"\(setting)\"")
            }
            return (parts[0], parts[1])
        }
    }

    // MARK: Running

    func run() throws {
        let stores = try storeOptions.openScoped()
        try RecordingPolicy.requireRecording(stores.database)
        let store = stores.donations
        for setting in try timeZoneSettings() {
            try store.setTimeZone(setting.zone, forUser: setting.user)
        }
        let printer = ImportProgressPrinter(mode: progress)
        let importer = DonationImporter(store: store, options: ImportOptions(strict: strict, batchSize: batchSize),
                                        onProgress: printer.report)
        var total = ImportSummary()
        for file in files {
            let summary = try importFile(file, with: importer)
            printer.finish()
            for message in summary.messages { ImportProgressPrinter.writeError(message + "\n") }
            if summary.unlistedRejections > 0 {
                ImportProgressPrinter.writeError("\(file): \(summary.unlistedRejections) more rejected lines not listed\n")
            }
            print(Self.describe(summary, source: file))
            total.merge(summary)
            if summary.aborted { break }
        }
        if files.count > 1 { print(Self.describe(total, source: "total")) }
        try RecordingPolicy.applyRetention(stores.database, now: Date())
        let seconds = printer.elapsed
        print(String(format: "%d lines in %.2f s (%.0f lines/s)", total.lines, seconds, seconds > 0 ? Double(total.lines) / seconds : 0))
        if total.aborted {
            ImportProgressPrinter.writeError("stopped (--strict): \(total.abortedBy!); nothing from that file was stored\n")
            throw ExitCode.failure
        }
        if total.rejected > 0 { throw ExitCode(2) }
    }

    private func importFile(_ file: String, with importer: DonationImporter) throws -> ImportSummary {
        switch format {
        case .jsonl: return try importer.importJSONLines(path: file)
        case .androidUsage:
            let result = try importer.importAndroidUsage(path: file, options: deviceLog.androidOptions())
            ImportProgressPrinter.writeError(result.device.lines(source: file).joined(separator: "\n") + "\n")
            return result.store
        case .knowledgec:
            let result = try importer.importKnowledgeC(path: file, options: deviceLog.knowledgeCOptions())
            ImportProgressPrinter.writeError(result.device.lines(source: file).joined(separator: "\n") + "\n")
            return result.store
        }
    }

    // MARK: Output

    static func describe(_ summary: ImportSummary, source: String) -> String {
        var text = "\(source): \(summary.lines) lines, \(summary.imported) imported, \(summary.duplicates) already stored, "
            + "\(summary.rejected) rejected, \(summary.emptyLines) empty"
        if summary.aborted { text += " (stopped at the first bad line, nothing stored)" }
        if !summary.rejectionsByCategory.isEmpty {
            text += "\n  rejected by reason: " + summary.sortedCategories.map { "\($0.category) \($0.count)" }.joined(separator: ", ")
        }
        return text
    }
}
