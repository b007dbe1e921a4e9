import Foundation
import ProactiveCore

// MARK: - ActivityWatch events

/// One event of an ActivityWatch bucket: a window in the foreground
/// (`currentwindow` buckets, `data.app`) or an AFK state (`afkstatus`, `data.status`).
package struct ActivityWatchEvent: Sendable, Hashable {
    /// Where it came from, for messages (`bucket aw-watcher-window_box event 12`).
    package var row: String
    /// Start, seconds since 1970.
    package var start: Double
    /// Seconds; a window event's grows while the window stays in front.
    package var duration: Double
    /// The application (`data.app`) of a window event, or the status (`data.status`) of an AFK event.
    package var value: String

    package init(row: String, start: Double, duration: Double, value: String) {
        self.row = row
        self.start = start
        self.duration = duration
        self.value = value
    }

    package var end: Double { start + duration }

    /// Reads one event object of the REST API or of an export
    /// (`{"timestamp": "2026-12-01T09:00:40.5+00:00", "duration": 5.0, "data": {"app": "firefox"}}`).
    /// - Parameter key: `app` for window buckets, `status` for AFK buckets.
    package static func parse(_ json: JSONValue, key: String, row: String) -> Result<ActivityWatchEvent, DeviceLogProblem> {
        func problem(_ field: String, _ reason: String) -> Result<ActivityWatchEvent, DeviceLogProblem> {
            .failure(DeviceLogProblem(row: row, error: DonationLineError(field: field, reason: reason)))
        }
        guard case .object = json else { return problem("event", "must be an object, found \(json.kindName)") }
        guard case let .string(stamp)? = json["timestamp"] else { return problem("timestamp", "missing or not a string") }
        let start: Double
        do {
            start = try Timestamp.parse(stamp).secondsSince1970
        } catch {
            return problem("timestamp", "\"\(stamp)\": \(error.reason)")
        }
        var duration = 0.0
        switch json["duration"] {
        case let .number(value, _)? where value >= 0 && value.isFinite: duration = value
        case nil, .null?: duration = 0
        case let other?: return problem("duration", "must be seconds >= 0, found \(other.kindName)")
        }
        guard case let .string(value)? = json["data"]?[key], !value.isEmpty else { return problem("data.\(key)", "missing or not a string") }
        return .success(ActivityWatchEvent(row: row, start: start, duration: duration, value: value))
    }
}

/// How ActivityWatch app switches become `open` donations.
public struct ActivityWatchOptions: Sendable, Hashable {
    public var user: String
    public var timeZone: TimeZone
    /// A window in front for less than this many seconds is passed over, not a switch (default 5).
    public var minimumDwell: TimeInterval
    /// The same app as the previous kept switch counts again after this many idle seconds
    /// (no window event, or an AFK period, between them); default 30 minutes.
    public var idleWindow: TimeInterval
    /// Keep switches that start while the afk-watcher says the person is away (default: skipped).
    public var keepAFK: Bool

    public init(user: String = Donation.defaultUser, timeZone: TimeZone, minimumDwell: TimeInterval = 5,
                idleWindow: TimeInterval = 30 * 60, keepAFK: Bool = false) {
        self.user = user
        self.timeZone = timeZone
        self.minimumDwell = minimumDwell
        self.idleWindow = idleWindow
        self.keepAFK = keepAFK
    }
}

// MARK: - The switch filter (pure)

/// Turns a window bucket's events, oldest first, into app-switch donations:
/// app `data.app` (white space written as `-`), intent `open`, identifier
/// `activitywatch/BUCKET/START_MS` (so importing an export and following the
/// server store each switch once).
///
/// - shorter than `minimumDwell`: dropped (a window passed over with Alt-Tab);
/// - the same app as the previous kept switch, within `idleWindow` and with no
///   AFK period between: dropped (a new window title of the same app);
/// - starting inside an AFK period (`status` `afk`): skipped.
///
/// ```swift
/// var filter = ActivityWatchSwitchFilter(bucket: "aw-watcher-window_box", options: options, afk: periods)
/// for event in events { if case let .donation(d) = filter.offer(event, final: true) { ... } }
/// ```
package struct ActivityWatchSwitchFilter: Sendable {
    package enum Decision: Sendable, Equatable {
        case donation(Donation)
        case dropped(String)
        case skipped(String)
        case problem(DeviceLogProblem)
        /// Not decided yet: the window is still in front and shorter than the dwell.
        case open
    }

    package static let prefix = "activitywatch/"
    package static let afkReason = "starts while away (afk-watcher)"
    package static let repeatReason = "same app as the previous kept switch"

    package let bucket: String
    package let options: ActivityWatchOptions
    /// AFK periods `[start, end)`, sorted by start.
    private let afk: [(start: Double, end: Double)]
    private var afkIndex = 0
    private var lastApp: String?
    private var lastEnd: Double?
    private var awaySinceKept = false

    /// - Parameter afk: the afk-watcher's events (status `afk` periods are used; others ignored).
    package init(bucket: String, options: ActivityWatchOptions, afk: [ActivityWatchEvent] = []) {
        self.bucket = bucket
        self.options = options
        self.afk = afk.filter { $0.value == "afk" }.map { ($0.start, $0.end) }.sorted { $0.start < $1.start }
    }

    /// The identifier a switch of `bucket` starting at `start` carries.
    package static func identifier(bucket: String, start: Double) -> String {
        "\(prefix)\(bucket)/\(Int64((start * 1000).rounded()))"
    }

    /// Judges the next event.
    /// - Parameter final: whether the event's duration is final (a later event exists, or the
    ///   bucket was exported); an open event shorter than the dwell is `.open`, undecided.
    package mutating func offer(_ event: ActivityWatchEvent, final: Bool) -> Decision {
        if event.duration < options.minimumDwell, !final { return .open }
        var away = false
        while afkIndex < afk.count, afk[afkIndex].start <= event.start {
            if afk[afkIndex].end > event.start { away = true }
            if lastEnd != nil { awaySinceKept = true }
            afkIndex += 1
        }
        if afkIndex > 0, afk[afkIndex - 1].end > event.start { away = true }
        if away, !options.keepAFK { return .skipped(Self.afkReason) }
        let previousEnd = lastEnd
        lastEnd = max(lastEnd ?? event.end, event.end)
        guard event.duration >= options.minimumDwell else {
            return .dropped("in front for less than the minimum dwell (\(Self.seconds(options.minimumDwell)))")
        }
        let app = event.value.split(whereSeparator: \.isWhitespace).joined(separator: "-")
        if let reason = IdentifierRules.bundleIdentifierProblem(app) {
            return .problem(DeviceLogProblem(row: event.row, error: DonationLineError(field: "data.app", reason: reason)))
        }
        let idle = previousEnd.map { event.start - $0 >= options.idleWindow } ?? true
        if app == lastApp, !idle, !awaySinceKept { return .dropped(Self.repeatReason) }
        lastApp = app
        awaySinceKept = false
        let date = Date(timeIntervalSince1970: event.start)
        return .donation(Donation(user: options.user, app: app, intent: Donation.openIntent, date: date,
                                  utcOffset: options.timeZone.secondsFromGMT(for: date),
                                  identifier: Self.identifier(bucket: bucket, start: event.start)))
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
