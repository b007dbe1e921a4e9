import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive import

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import donation logs into the store.",
        discussion: """
            Reads each FILE (JSON Lines, one donation per line, see docs/FORMATS.md; '-' reads \
            standard input) in constant memory and stores it in transactions of --batch-size \
            donations. A bad line is reported as FILE:LINE: field: reason on standard error and \
            skipped; the good lines around it are kept. With --strict the first bad line stops the \
            import and nothing from that file is stored (earlier files stay). A field the format does \
            not define is ignored, as the format allows, with one warning per field naming how many \
            lines carry it and the field it is nearest to ("paramters": did you mean "parameters"?); \
            --strict refuses such a line. A JSON array is refused at once (it is not JSON Lines).

            Importing is idempotent: a donation already stored is skipped and counted as "already \
            stored", whether it has an identifier (same app and identifier) or not (every field \
            equal: user, app, intent, parameters, date and offset, group, context, count). \
            Re-importing an export into the store it came from stores nothing new.

            A new store keeps every donation. Once the owner sets a retention window (proactive \
            retention set --days 28), donations already older than their app's window are not \
            stored and are counted: "N older than the retention window (28 days) not stored". \
            Stored donations that have aged past their window are erased before the import. While \
            recording is paused (proactive pause on) nothing is imported. With --as-app A every \
            donation must be A's (app mode); another app's donation stops the import.

            Saved models (proactive train) stay current: after storing, the new donations are \
            folded into each saved model they leave behind and the model is saved, so the next \
            predict or suggest reads it as is ("models: 1 saved model updated (10 donations \
            folded in)"). A model with more than 1000 new donations, or one saved under other \
            intent definitions, is left to its next query; --models defer leaves every model to \
            its next query (a crash never leaves a model that disagrees with the store: a query \
            folds in whatever the saved model has not learned).

            The summary goes to standard error (with --json, a JSON object to standard output). \
            Exit status: 0 when every line was stored, already stored or older than the retention \
            window; 2 when the import finished but some lines were rejected (or rows of a device \
            or desktop log were malformed); 1 when a strict \
            import stopped or an error occurred.

            --format android-usage and --format knowledgec read a device's SQLite database \
            (Android Digital Wellbeing app_usage, Apple knowledgeC.db); what the reader kept, \
            dropped and skipped, and why, goes to standard error. A malformed row is named and \
            skipped (--strict: stops).

            A desktop's own history: --format zsh (EXTENDED_HISTORY), fish, bash (written with \
            HISTTIMEFORMAT set) read a shell's history file (app the shell, intent the command, \
            with git's subcommand, ssh's host, cd's directory; a command without a time is counted \
            and skipped); --format firefox (places.sqlite) and chromium (History) read a browser's \
            history, even while the browser runs (intent visit, parameter site); --format \
            activitywatch reads an ActivityWatch export (app switches; `proactive follow \
            activitywatch` follows a running server). Their clock is this machine's zone unless \
            --timezone says otherwise.

            Examples:
              proactive import donations.jsonl
              proactive import log.jsonl --user-timezone u1=America/New_York
              proactive import --strict a.jsonl b.jsonl
              proactive import --format android-usage app_usage \\
                --timezone America/New_York --user pixel
              proactive import --format zsh ~/.zsh_history
              proactive import --format firefox ~/.mozilla/firefox/*.default*/places.sqlite
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("Donation logs to import ('-' for standard input).", valueName: "file"))
    var files: [String]

    @Option(help: ArgumentHelp(stringLiteral: LogFormat.help))
    var format: LogFormat = .jsonl

    @OptionGroup(title: "Device logs") var deviceLog: DeviceLogOptions

    @Flag(help: "Stop at the first bad line and store nothing from that file; a field the format does not define (a misspelled \"paramters\") is a bad line.")
    var strict = false

    @Option(help: "Donations per transaction.")
    var batchSize = ImportOptions.defaultBatchSize

    @Option(help: ArgumentHelp(
        "Read a user's donations on this IANA time zone's clock instead of each date's offset (repeatable).",
        valueName: "user=zone"))
    var userTimezone: [String] = []

    @Option(help: "Progress on standard error: auto (a live line on a terminal), log (a line per committed batch), none.")
    var progress: ProgressMode = .auto

    @Flag(help: "Also print the summary as one JSON object on standard output.")
    var json = false

    @Option(help: ArgumentHelp("""
        After storing: 'update' folds the new donations into every saved model they leave behind \
        (at most \(Engine.maxFoldedPerImport) per model), so the next query reads a current model; \
        'defer' leaves that to each user's next query. Never refits.
        """, valueName: "update|defer"))
    var models: DonationImport.ModelPolicy = .update

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
            guard parts.count == 2, !parts[0].isEmpty else {
                throw ValidationError("--user-timezone wants USER=ZONE with an IANA zone such as u1=America/New_York, found \"\(setting)\"")
            }
            guard TimeZone(identifier: parts[1]) != nil else { throw ValidationError("--user-timezone \(parts[0]): \(unknownTimeZone(parts[1]))") }
            return (parts[0], parts[1])
        }
    }

    // MARK: Running

    func run() throws {
        let engine = try storeOptions.openEngine(appMode: .scoped)
        let printer = ImportProgressPrinter(mode: progress)
        let run = try engine.beginImport(timeZones: try timeZoneSettings(), strict: strict, batchSize: batchSize,
                                         resume: "proactive pause off", onProgress: printer.report)
        RecordingPolicy.tell(run.erased)
        let (importer, retention) = (run.importer, run.retention)
        var total = ImportSummary()
        var perFile: [(file: String, summary: ImportSummary)] = []
        var malformed = 0
        for file in files {
            let (summary, malformedRows) = try importFile(file, with: importer)
            malformed += malformedRows
            printer.finish()
            for message in summary.messages { ImportProgressPrinter.writeError(message + "\n") }
            for warning in summary.unknownFieldWarnings + summary.timeZoneWarnings { ImportProgressPrinter.writeError("warning: \(warning)\n") }
            if summary.unlistedRejections > 0 {
                ImportProgressPrinter.writeError("\(file): \(summary.unlistedRejections) more rejected lines not listed\n")
            }
            ImportProgressPrinter.writeError(Self.describe(summary, source: file, retention: retention) + "\n")
            perFile.append((file, summary))
            total.merge(summary)
            if summary.aborted { break }
        }
        if files.count > 1 { ImportProgressPrinter.writeError(Self.describe(total, source: "total", retention: retention) + "\n") }
        let seconds = printer.elapsed
        ImportProgressPrinter.writeError(String(format: "%d lines in %.2f s (%.0f lines/s)\n", total.lines, seconds,
                                                seconds > 0 ? Double(total.lines) / seconds : 0))
        let started = Date()
        let modelsUpdate = try run.finish(imported: total.imported, models: models)
        if let modelsUpdate {
            for line in Self.describe(modelsUpdate, seconds: Date().timeIntervalSince(started)) { ImportProgressPrinter.writeError(line + "\n") }
        }
        if json {
            print(JSONWriter.string(Self.json(total, files: perFile, retention: retention, seconds: seconds, models: modelsUpdate)))
        }
        if total.aborted {
            ImportProgressPrinter.writeError("stopped (--strict): \(total.abortedBy!); nothing from that file was stored\n")
            throw ExitCode.failure
        }
        if total.rejected > 0 || malformed > 0 { throw ExitCode(2) }
    }

    /// Imports one file; returns the store's summary and how many rows a device or desktop reader found malformed.
    private func importFile(_ file: String, with importer: DonationImporter) throws -> (ImportSummary, Int) {
        switch format {
        case .jsonl:
            try Self.refuseJSONArray(file)
            return (try importer.importJSONLines(path: file), 0)
        case .androidUsage:
            return Self.tell(try importer.importAndroidUsage(path: file, options: deviceLog.androidOptions()), file)
        case .knowledgec:
            return Self.tell(try importer.importKnowledgeC(path: file, options: deviceLog.knowledgeCOptions()), file)
        case .zsh, .fish, .bash:
            return Self.tell(try importer.importShellHistory(path: file, shell: format.shell!, options: deviceLog.shellOptions()), file)
        case .firefox, .chromium:
            return Self.tell(try importer.importBrowserHistory(path: file, browser: format.browser!, options: deviceLog.browserOptions()), file)
        case .activitywatch:
            return Self.tell(try importer.importActivityWatch(path: file, options: deviceLog.activityWatchOptions()), file)
        }
    }

    /// Prints what a device or desktop reader kept, dropped and why; returns the store's summary and the malformed rows.
    private static func tell(_ result: DeviceLogImport, _ file: String) -> (ImportSummary, Int) {
        ImportProgressPrinter.writeError(result.device.lines(source: file).joined(separator: "\n") + "\n")
        return (result.store, result.device.problemCount)
    }

    /// A file whose first character (after a byte order mark and white space) is `[` is a JSON
    /// array, not JSON Lines: refused once, with the way to convert it, before anything is stored.
    static func refuseJSONArray(_ file: String) throws {
        guard file != "-", let handle = FileHandle(forReadingAtPath: file) else { return }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 4096)) ?? Data()
        var bytes = head[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "[") else { return }
        throw CommandFailure(description: "\(file): starts with '[', a JSON array; import reads JSON Lines (one donation object per "
                             + "line, docs/FORMATS.md): convert it with  jq -c '.[]' \(file) > donations.jsonl")
    }

    // MARK: Output

    /// `FILE: 12 lines: 9 stored, 1 already stored, 1 older than the retention window (28 days) not stored, 1 rejected, 0 empty`;
    /// the retention count only when a window is set.
    static func describe(_ summary: ImportSummary, source: String, retention: ImportRetention) -> String {
        var parts = ["\(summary.imported) stored", "\(summary.duplicates) already stored"]
        if !retention.keepsEverything {
            parts.append("\(summary.olderThanRetention) older than \(windowPhrase(summary, retention.policy)) not stored")
        }
        parts += ["\(summary.rejected) rejected", "\(summary.emptyLines) empty"]
        var text = "\(source): \(summary.lines) lines: " + parts.joined(separator: ", ")
        if summary.aborted { text += " (stopped at the first bad line, nothing stored)" }
        if !summary.rejectionsByCategory.isEmpty {
            text += "\n  rejected by reason: " + summary.sortedCategories.map { "\($0.category) \($0.count)" }.joined(separator: ", ")
        }
        return text
    }

    /// "the retention window (28 days)", or with several windows involved
    /// "their app's retention window (com.example.health 7 days, com.example.mail 28 days)".
    static func windowPhrase(_ summary: ImportSummary, _ policy: RetentionPolicy) -> String {
        let apps = summary.olderThanRetentionByApp.keys.sorted()
        let windows = Set(apps.map(policy.window(for:)))
        if windows.count <= 1 {
            let window = windows.first ?? policy.defaultWindow
            if window != .keepAll { return "the retention window (\(window))" }
        }
        let described = apps.isEmpty ? ["default \(policy.defaultWindow)"] + policy.byApp.keys.sorted().map { "\($0) \(policy.byApp[$0]!)" }
            : apps.map { "\($0) \(policy.window(for: $0))" }
        return "their app's retention window (" + described.joined(separator: ", ") + ")"
    }

    /// `--json`: the totals, then one object per file.
    static func json(_ total: ImportSummary, files: [(file: String, summary: ImportSummary)], retention: ImportRetention,
                     seconds: Double, models: Engine.SavedModelsUpdate? = nil) -> JSONValue {
        func number(_ value: Int) -> JSONValue { .number(Double(value), integer: Int64(value)) }
        func counts(_ summary: ImportSummary) -> [(String, JSONValue)] {
            var members: [(String, JSONValue)] = [
                ("lines", number(summary.lines)), ("stored", number(summary.imported)),
                ("already_stored", number(summary.duplicates)), ("older_than_retention", number(summary.olderThanRetention)),
                ("rejected", number(summary.rejected)), ("empty", number(summary.emptyLines)),
                ("rejected_by_reason", .object(summary.sortedCategories.map { ($0.category, number($0.count)) })),
            ]
            if let abortedBy = summary.abortedBy { members.append(("stopped_by", .string(abortedBy))) }
            if !summary.unknownFields.isEmpty {
                members.append(("unknown_fields", .object(summary.unknownFields.sorted { $0.key < $1.key }.map { ($0.key, number($0.value.lines)) })))
            }
            return members
        }
        let windows: [(String, JSONValue)] = [("default", window(retention.policy.defaultWindow))]
            + retention.policy.byApp.keys.sorted().map { ($0, window(retention.policy.byApp[$0]!)) }
        return .object(counts(total) + [
            ("seconds", .number(seconds, integer: nil)),
            ("retention_days", .object(windows)),
            ("files", .array(files.map { .object([("file", .string($0.file))] + counts($0.summary)) })),
        ] + (models.map { [("models", json($0))] } ?? []))
    }

    /// The saved models' update, for a person: nothing when no saved model was behind.
    static func describe(_ update: Engine.SavedModelsUpdate, seconds: Double) -> [String] {
        var lines: [String] = []
        if !update.updated.isEmpty {
            let folded = update.updated.reduce(0) { $0 + $1.folded }
            lines.append(String(format: "models: %d saved model%@ updated (%d donation%@ folded in) in %.2f s",
                                update.updated.count, update.updated.count == 1 ? "" : "s", folded, folded == 1 ? "" : "s", seconds))
        }
        for state in update.deferred {
            lines.append("models: \(state.name) model of user \(state.user) left behind by \(state.pending) donations: \(state.reason)")
        }
        return lines
    }

    static func json(_ update: Engine.SavedModelsUpdate) -> JSONValue {
        func number(_ value: Int) -> JSONValue { .number(Double(value), integer: Int64(value)) }
        return .object([
            ("updated", .array(update.updated.map { .object([("user", .string($0.user)), ("model", .string($0.name)), ("folded", number($0.folded))]) })),
            ("deferred", .array(update.deferred.map {
                .object([("user", .string($0.user)), ("model", .string($0.name)), ("pending", number($0.pending)), ("reason", .string($0.reason))])
            })),
        ])
    }

    /// Days of a window, null for keep everything.
    private static func window(_ window: RetentionWindow) -> JSONValue {
        if case let .days(days) = window { return .number(Double(days), integer: Int64(days)) }
        return .null
    }
}

/// `--models update|defer`.
extension DonationImport.ModelPolicy: ExpressibleByArgument {}
