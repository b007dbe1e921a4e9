import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive follow

struct FollowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "Keep donating what a running source records, as it happens.",
        subcommands: [FollowActivityWatchCommand.self])
}

/// `proactive follow activitywatch`: polls ActivityWatch's window buckets and stores each new app switch.
struct FollowActivityWatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activitywatch",
        abstract: "Donate each app switch ActivityWatch's window watcher records, as it happens.",
        discussion: """
            Reads every window bucket (aw-watcher-window) of the ActivityWatch server at --url over its \
            REST API, every --interval seconds, and stores each new app switch as an `open` donation of \
            the app: the same rules as `import --format activitywatch` (a window must stay in front \
            --min-dwell seconds; another window of the same app is folded unless --idle-window minutes \
            passed or you were away; switches made while the afk-watcher says you were away are \
            skipped). The first poll reads the server's whole history, so suggestions start at once.

            The store is the checkpoint: each switch is stored once, under an identifier naming its \
            bucket and start, and a restart reads on from the newest one stored. Killed at any point \
            (even kill -9) and started again, it loses and repeats nothing; switches made while it was \
            down are read when it comes back. A server that does not answer is waited for, said once \
            on standard error, and said again when it answers. Saved models are brought up to date \
            after each poll that stored something. While recording is paused nothing is stored.

            Run it as a systemd user service: docs/proactive-follow-activitywatch.service says how.

            Examples:
              proactive follow activitywatch
              proactive follow activitywatch --url http://localhost:5600 \\
                  --interval 10 --user me
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "The ActivityWatch server.")
    var url = "http://localhost:5600"

    @Option(help: "Seconds between polls.")
    var interval: Double = 5

    @Flag(help: "Poll once, print what was stored, and exit (0, or 1 when the server does not answer).")
    var once = false

    @Option(help: "The user the donations belong to.")
    var user: String = Donation.defaultUser

    @Option(name: .customLong("timezone"), help: "IANA time zone of this machine's clock (default: the system's).")
    var timeZoneName: String?

    @Option(help: "Seconds a window must stay in front to count as an app switch.")
    var minDwell: Double = 5

    @Option(help: "The same app counts as a new switch after this many idle minutes (no other window, or an AFK period, between).")
    var idleWindow: Double = 30

    @Flag(help: "Keep switches made while the afk-watcher says you were away (default: skipped).")
    var keepAfk = false

    func validate() throws {
        guard interval >= 0.1, interval.isFinite else { throw ValidationError("--interval must be at least 0.1 seconds") }
        for (name, value) in [("--min-dwell", minDwell), ("--idle-window", idleWindow)] where !(value >= 0 && value.isFinite) {
            throw ValidationError("\(name) must be a number >= 0, found \(value)")
        }
        _ = try parseTimeZone(timeZoneName)
        _ = try LoopbackHTTPClient(url: url)
    }

    func run() throws {
        let zone = try parseTimeZone(timeZoneName) ?? TimeZone.current
        let options = ActivityWatchOptions(user: user, timeZone: zone, minimumDwell: minDwell, idleWindow: idleWindow * 60, keepAFK: keepAfk)
        var follower = ActivityWatchFollower(engine: try storeOptions.openEngine(), transport: try LoopbackHTTPClient(url: url), options: options)
        printError("following ActivityWatch at \(url) every \(Self.number(interval)) s for user \(user) (time zone \(zone.identifier))")
        var waiting = false
        var pausedSaid = false
        while true {
            do {
                let report = try follower.poll(now: Date())
                if waiting { printError("ActivityWatch at \(url) answers again") }
                waiting = false
                pausedSaid = false
                for line in Self.describe(report) { printError(line) }
            } catch let away as ActivityWatchUnreachable {
                if once { throw CommandFailure(description: "ActivityWatch does not answer: \(away)") }
                if !waiting { printError("ActivityWatch does not answer (\(away)); waiting, trying again every \(Self.number(interval)) s") }
                waiting = true
            } catch let error as StoreError where error.code == .recordingPaused {
                if once { throw error }
                if !pausedSaid { printError("recording is paused (proactive pause off resumes it); nothing is stored meanwhile") }
                pausedSaid = true
            }
            if once { return }
            Thread.sleep(forTimeInterval: interval)
        }
    }

    /// One line when something was stored or found wrong; nothing for a quiet poll.
    static func describe(_ report: ActivityWatchFollower.Report) -> [String] {
        var lines: [String] = []
        if report.stored > 0 || report.alreadyStored > 1 {
            let newest = report.checkpoints.values.max().map { " (newest \(Timestamp.format(secondsSince1970: $0.timeIntervalSince1970, utcOffsetSeconds: 0)))" } ?? ""
            lines.append("activitywatch: \(report.stored) new switch\(report.stored == 1 ? "" : "es") stored\(newest)"
                         + (report.alreadyStored > 1 ? ", \(report.alreadyStored) already stored" : ""))
        }
        for problem in report.problems.prefix(DeviceLogSummary.problemLimit) { lines.append("  malformed, skipped: \(problem)") }
        if let models = report.models { lines += ImportCommand.describe(models, seconds: 0).map { $0.replacingOccurrences(of: " in 0.00 s", with: "") } }
        return lines
    }

    static func number(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
}
