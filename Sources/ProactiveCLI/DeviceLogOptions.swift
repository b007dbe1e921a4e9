import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveStore

// MARK: - Formats a log file can be read in

/// The donation-log formats `import` and `convert` read.
enum LogFormat: String, CaseIterable, ExpressibleByArgument {
    static let help = "The format of the files: \(allCases.map(\.rawValue).joined(separator: ", ")) (Android Digital Wellbeing app_usage, Apple knowledgeC.db)."

    /// Donation JSON Lines (docs/FORMATS.md).
    case jsonl
    /// Android Digital Wellbeing `app_usage` SQLite database.
    case androidUsage = "android-usage"
    /// Apple knowledgeC.db.
    case knowledgec
}

/// How Android deduplicates foreground events (`--dedup`).
enum DedupRule: String, CaseIterable, ExpressibleByArgument {
    case changeOrIdle = "change-or-idle"
    case change
    case none
}

// MARK: - Shared options

/// Options of the device-log readers, shared by `import` and `convert`
/// (each command has its own `--format`).
struct DeviceLogOptions: ParsableArguments {
    @Option(name: .customLong("timezone"), help: ArgumentHelp(
        "android-usage, knowledgec: IANA time zone the device lived in (e.g. America/New_York); each donation's offset is this zone's offset at its instant.",
        discussion: "Required for android-usage (its timestamps carry no offset); knowledgec defaults to each row's ZSECONDSFROMGMT."))
    var timeZoneName: String?

    @Option(help: "android-usage, knowledgec: the user the donations belong to.")
    var user: String = Donation.defaultUser

    @Flag(help: "android-usage: keep launcher and System UI foreground events.")
    var keepLauncher = false

    @Option(help: "android-usage: which foreground events are launches (change-or-idle: a new package, or the same one after --dedup-window minutes without any foreground event; change: a new package; none: all).")
    var dedup: DedupRule = .changeOrIdle

    @Option(help: "android-usage: idle minutes for --dedup change-or-idle.")
    var dedupWindow: Double = 30

    @Option(help: "android-usage: add context unlocked=recent to launches within this many seconds after a keyguard unlock.")
    var unlockWindow: Double?

    /// Checks the options against the format being read.
    /// - Parameter timeZoneForJSONLines: whether `--timezone` may rewrite JSON Lines offsets.
    func check(format: LogFormat, timeZoneForJSONLines: Bool) throws {
        if format == .androidUsage, timeZoneName == nil {
            throw ValidationError("--format android-usage needs --timezone (its timestamps carry no offset), e.g. --timezone America/New_York")
        }
        if format == .jsonl, timeZoneName != nil, !timeZoneForJSONLines {
            throw ValidationError("--timezone applies to android-usage and knowledgec; for JSON Lines use --user-timezone USER=ZONE")
        }
        _ = try timeZone()
        guard dedupWindow >= 0, dedupWindow.isFinite else { throw ValidationError("--dedup-window must be >= 0 minutes") }
        if let unlockWindow, !(unlockWindow >= 0) { throw ValidationError("--unlock-window must be >= 0 seconds") }
    }

    /// The zone given with `--timezone`, if any.
    func timeZone() throws -> TimeZone? { try parseTimeZone(timeZoneName) }

    var deduplication: AndroidLaunchDeduplication {
        switch dedup {
        case .changeOrIdle: .packageChangeOrIdle(window: dedupWindow * 60)
        case .change: .packageChange
        case .none: .none
        }
    }

    /// The android-usage reader's options. - Precondition: `check` passed for android-usage.
    func androidOptions() throws -> AndroidUsageOptions {
        AndroidUsageOptions(user: user, timeZone: try timeZone()!, keepLauncher: keepLauncher,
                            deduplication: deduplication, unlockWindow: unlockWindow)
    }

    func knowledgeCOptions() throws -> KnowledgeCOptions {
        KnowledgeCOptions(user: user, timeZone: try timeZone())
    }

    // MARK: Reading without a store

    /// Streams `path` in `format` to `emit` and returns the summary lines.
    /// Malformed JSONL lines are named `FILE:LINE: field: reason`; `--timezone`
    /// rewrites JSONL offsets to the zone's.
    func read(path: String, format: LogFormat, emit: (Donation) throws -> Void) throws -> [String] {
        switch format {
        case .androidUsage:
            return try AndroidUsageReader.read(path: path, options: androidOptions(), emit: emit).lines(source: path)
        case .knowledgec:
            return try KnowledgeCReader.read(path: path, options: knowledgeCOptions(), emit: emit).lines(source: path)
        case .jsonl:
            let zone = try timeZone()
            var kept = 0
            var bad: [String] = []
            var badCount = 0
            try DonationLogFile.read(path: path) { line, result in
                switch result {
                case var .success(donation):
                    if let zone { donation.utcOffset = zone.secondsFromGMT(for: donation.date) }
                    kept += 1
                    try emit(donation)
                case let .failure(error):
                    badCount += 1
                    if bad.count < DeviceLogSummary.problemLimit { bad.append("    \(path):\(line): \(error)") }
                }
            }
            var lines = ["jsonl: kept \(kept) donation\(kept == 1 ? "" : "s")"]
            if badCount > 0 {
                lines.append("  \(badCount) malformed line\(badCount == 1 ? "" : "s") skipped:")
                lines += bad
                if badCount > bad.count { lines.append("    ... and \(badCount - bad.count) more") }
            }
            return lines
        }
    }
}

/// Writes lines to standard error (summaries and progress, never data).
func printError(_ text: String) { ImportProgressPrinter.writeError(text + "\n") }
