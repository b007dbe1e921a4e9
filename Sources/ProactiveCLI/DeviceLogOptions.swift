import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - Formats a log file can be read in

/// The donation-log formats `import` and `convert` read.
enum LogFormat: String, CaseIterable, ExpressibleByArgument {
    static let help = "The format of the files: \(allCases.map(\.rawValue).joined(separator: ", ")) (Android Digital Wellbeing app_usage, Apple knowledgeC.db; "
        + "a shell's history file; Firefox places.sqlite, Chromium History; an ActivityWatch export)."

    /// Donation JSON Lines (docs/FORMATS.md).
    case jsonl
    /// Android Digital Wellbeing `app_usage` SQLite database.
    case androidUsage = "android-usage"
    /// Apple knowledgeC.db.
    case knowledgec
    /// zsh history with EXTENDED_HISTORY (`~/.zsh_history`).
    case zsh
    /// fish history (`~/.local/share/fish/fish_history`).
    case fish
    /// bash history written with HISTTIMEFORMAT set (`~/.bash_history`).
    case bash
    /// Firefox `places.sqlite`.
    case firefox
    /// Chromium's or Chrome's `History`.
    case chromium
    /// An ActivityWatch export (`GET /api/0/export`).
    case activitywatch

    var shell: ShellKind? { ShellKind(rawValue: rawValue) }
    var browser: BrowserKind? { BrowserKind(rawValue: rawValue) }
    /// The desktop's own formats: their time zone defaults to this machine's.
    var isDesktop: Bool { shell != nil || browser != nil || self == .activitywatch }
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
        "Device and desktop logs: IANA time zone the device lived in (e.g. America/New_York); each donation's offset is this zone's offset at its instant.",
        discussion: "Required for android-usage (its timestamps carry no offset); knowledgec defaults to each row's ZSECONDSFROMGMT; zsh, fish, bash, firefox, chromium and activitywatch default to this machine's zone."))
    var timeZoneName: String?

    @Option(help: "Device and desktop logs: the user the donations belong to.")
    var user: String = Donation.defaultUser

    @Flag(help: "android-usage: keep launcher and System UI foreground events.")
    var keepLauncher = false

    @Option(help: "android-usage: which foreground events are launches (change-or-idle: a new package, or the same one after --dedup-window minutes without any foreground event; change: a new package; none: all).")
    var dedup: DedupRule = .changeOrIdle

    @Option(help: "android-usage: idle minutes for --dedup change-or-idle.")
    var dedupWindow: Double = 30

    @Option(help: "android-usage: add context unlocked=recent to launches within this many seconds after a keyguard unlock.")
    var unlockWindow: Double?

    @Flag(help: "zsh, fish, bash: also donate the parameter 'arguments' (the rest of the command line; it rarely repeats, and `proactive lint` says so). Default: only what repeats (git's subcommand, ssh's host, cd's directory).")
    var keepArguments = false

    @Option(help: "firefox, chromium: a visit to the same site as the previous kept visit is folded into it unless this many minutes passed (0 keeps every visit).")
    var foldWindow: Double = 30

    @Option(help: "activitywatch: seconds a window must stay in front to count as an app switch.")
    var minDwell: Double = 5

    @Option(help: "activitywatch: the same app counts as a new switch after this many idle minutes (no other window, or an AFK period, between).")
    var idleWindow: Double = 30

    @Flag(help: "activitywatch: keep switches made while the afk-watcher says you were away (default: skipped).")
    var keepAfk = false

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
        for (name, value) in [("--fold-window", foldWindow), ("--min-dwell", minDwell), ("--idle-window", idleWindow)] where !(value >= 0 && value.isFinite) {
            throw ValidationError("\(name) must be a number >= 0, found \(value)")
        }
    }

    /// `--timezone`, or this machine's zone for the desktop formats.
    func desktopTimeZone() throws -> TimeZone { try timeZone() ?? TimeZone.current }

    func shellOptions() throws -> ShellHistoryOptions {
        ShellHistoryOptions(user: user, timeZone: try desktopTimeZone(), keepArguments: keepArguments)
    }

    func browserOptions() throws -> BrowserHistoryOptions {
        BrowserHistoryOptions(user: user, timeZone: try desktopTimeZone(), foldWindow: foldWindow * 60)
    }

    func activityWatchOptions() throws -> ActivityWatchOptions {
        ActivityWatchOptions(user: user, timeZone: try desktopTimeZone(), minimumDwell: minDwell, idleWindow: idleWindow * 60, keepAFK: keepAfk)
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
        case .zsh, .fish, .bash:
            return try ShellHistoryReader.read(path: path, shell: format.shell!, options: shellOptions(), emit: emit).lines(source: path)
        case .firefox, .chromium:
            return try BrowserHistoryReader.read(path: path, browser: format.browser!, options: browserOptions(), emit: emit).lines(source: path)
        case .activitywatch:
            return try ActivityWatchExportReader.read(path: path, options: activityWatchOptions(), emit: emit).lines(source: path)
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
