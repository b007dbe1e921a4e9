import Foundation
import ProactiveCore
import ProactiveStore

// MARK: - Following a running ActivityWatch server

/// How the follower reaches an ActivityWatch server: one HTTP GET, the body on status 200.
/// The CLI's adapter speaks HTTP; tests may answer from memory.
public protocol ActivityWatchTransport {
    /// GETs `path` (`/api/0/buckets/`) and returns the body.
    /// - Throws: `ActivityWatchUnreachable` when the server does not answer (it may come
    ///   back: the follower waits); any other error for an answer that is not 200.
    func get(_ path: String) throws -> [UInt8]
}

/// The server did not answer (refused, timed out, closed): worth waiting for.
public struct ActivityWatchUnreachable: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Follows an ActivityWatch server's window buckets and stores each new app
/// switch as a donation (`ActivityWatchSwitchFilter`, the same rules as
/// `import --format activitywatch`).
///
/// **Checkpoint.** The store is the checkpoint: each switch is stored with the
/// identifier `activitywatch/BUCKET/START_MS`, and a poll starts from the newest
/// switch of the bucket already stored for the user, judged again with the
/// events after it. A switch is stored once (a stored identifier is skipped), so
/// a follower killed at any point and started again neither loses nor repeats
/// one; switches made while it was down are read on its first poll.
///
/// ```swift
/// var follower = ActivityWatchFollower(engine: engine, transport: http, options: ActivityWatchOptions(timeZone: .current))
/// let report = try follower.poll(now: Date())   // report.stored new switches
/// ```
public struct ActivityWatchFollower {
    public let engine: Engine
    public let transport: any ActivityWatchTransport
    public let options: ActivityWatchOptions
    /// The newest stored switch per window bucket (seconds since 1970), once known.
    private var checkpoints: [String: Double] = [:]
    /// Buckets whose stored checkpoint was looked up (once per follower: a scan of the user's donations).
    private var lookedUp: Set<String> = []

    public init(engine: Engine, transport: any ActivityWatchTransport, options: ActivityWatchOptions) {
        self.engine = engine
        self.transport = transport
        self.options = options
    }

    /// What one poll did.
    public struct Report: Sendable, Equatable {
        /// Window buckets read.
        public var buckets: [String] = []
        /// New switches stored.
        public var stored = 0
        /// Switches already stored (the checkpoint's own, or after a restart).
        public var alreadyStored = 0
        /// Events passed over, by reason (dwell, repeat, away).
        public var dropped: [String: Int] = [:]
        /// Malformed events, named.
        public var problems: [DeviceLogProblem] = []
        /// The newest stored switch of each bucket after the poll.
        public var checkpoints: [String: Date] = [:]
        /// Saved models brought up to date after storing.
        public var models: Engine.SavedModelsUpdate?
    }

    /// Reads what happened since the checkpoints and stores the new switches.
    /// - Throws: `ActivityWatchUnreachable` when the server does not answer (nothing is
    ///   stored; poll again later); `StoreError` (`.recordingPaused` while paused, `.io`
    ///   for an answer that is not what ActivityWatch sends); store failures.
    public mutating func poll(now: Date) throws -> Report {
        var report = Report()
        let buckets = try json(try transport.get("/api/0/buckets/"), what: "the bucket list")
        guard case let .object(members) = buckets else { throw StoreError(.io, "ActivityWatch's bucket list is not an object") }
        func field(_ value: JSONValue, _ name: String) -> String {
            if case let .string(text)? = value[name] { return text }
            return ""
        }
        let windows = members.filter { field($0.1, "type") == ActivityWatchExportReader.windowType }.sorted { $0.0 < $1.0 }
        var donations: [Donation] = []
        for (bucket, description) in windows {
            report.buckets.append(bucket)
            if lookedUp.insert(bucket).inserted, let stored = try storedCheckpoint(bucket: bucket) { checkpoints[bucket] = stored }
            let checkpoint = checkpoints[bucket]
            let since = checkpoint.map { Self.iso($0) }
            var events = try self.events(bucket: bucket, since: since, key: "app", report: &report)
                .filter { checkpoint == nil || $0.start >= checkpoint! - 0.0005 }
            events.sort { $0.start < $1.start }
            let host = field(description, "hostname")
            var afk: [ActivityWatchEvent] = []
            for (afkBucket, afkDescription) in members where field(afkDescription, "type") == ActivityWatchExportReader.afkType
                && field(afkDescription, "hostname") == host {
                afk += try self.events(bucket: afkBucket, since: checkpoint.map { Self.iso($0 - 86_400) }, key: "status", report: &report)
            }
            var filter = ActivityWatchSwitchFilter(bucket: bucket, options: options, afk: afk)
            for (index, event) in events.enumerated() {
                // The newest event is the window in front now: its duration still grows.
                let decision = filter.offer(event, final: index < events.count - 1)
                if case .open = decision { break }
                switch decision {
                case let .donation(donation): donations.append(donation)
                case let .dropped(reason), let .skipped(reason): report.dropped[reason, default: 0] += 1
                case let .problem(problem): report.problems.append(problem)
                case .open: break
                }
            }
        }
        if !donations.isEmpty {
            let run = try engine.beginImport(strict: false, batchSize: ImportOptions.defaultBatchSize, now: now, resume: "proactive pause off")
            let summary = try run.importer.run(source: "activitywatch", totalBytes: nil) { session in
                for donation in donations {
                    session.countLine()
                    try session.add(donation)
                }
            }
            report.stored = summary.imported
            report.alreadyStored = summary.duplicates
            report.models = try run.finish(imported: summary.imported, models: .update)
            for donation in donations {
                let bucket = String(donation.identifier!.dropFirst(ActivityWatchSwitchFilter.prefix.count).split(separator: "/").dropLast().joined(separator: "/"))
                checkpoints[bucket] = max(checkpoints[bucket] ?? 0, donation.date.timeIntervalSince1970)
            }
        }
        for (bucket, seconds) in checkpoints { report.checkpoints[bucket] = Date(timeIntervalSince1970: seconds) }
        return report
    }

    /// The start of the newest switch of `bucket` stored for the user, read once per bucket.
    func storedCheckpoint(bucket: String) throws -> Double? {
        let prefix = ActivityWatchSwitchFilter.prefix + bucket + "/"
        var newest: Int64?
        for donation in try engine.donations(forUser: options.user) {
            guard let identifier = donation.identifier, identifier.hasPrefix(prefix),
                  let milliseconds = Int64(identifier.dropFirst(prefix.count)) else { continue }
            newest = max(newest ?? milliseconds, milliseconds)
        }
        return newest.map { Double($0) / 1000 }
    }

    private func events(bucket: String, since: String?, key: String, report: inout Report) throws -> [ActivityWatchEvent] {
        let encodedBucket = bucket.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? bucket
        var path = "/api/0/buckets/\(encodedBucket)/events?limit=-1"
        if let since { path += "&start=" + (since.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? since) }
        guard case let .array(items) = try json(try transport.get(path), what: "the events of \(bucket)") else {
            throw StoreError(.io, "ActivityWatch's events of \(bucket) are not an array")
        }
        var events: [ActivityWatchEvent] = []
        for (index, item) in items.enumerated() {
            var row = "bucket \(bucket) event \(index + 1)"
            if case let .number(_, id?)? = item["id"] { row = "bucket \(bucket) event id \(id)" }
            switch ActivityWatchEvent.parse(item, key: key, row: row) {
            case let .success(event): events.append(event)
            case let .failure(problem): report.problems.append(problem)
            }
        }
        return events
    }

    private func json(_ bytes: [UInt8], what: String) throws -> JSONValue {
        do {
            return try bytes.withUnsafeBytes { buffer throws(JSONParseError) in try JSONParser.parse(buffer, maximumDepth: 64) }
        } catch {
            throw StoreError(.io, "ActivityWatch's answer for \(what) is not JSON: \(error)")
        }
    }

    /// `2024-12-06T08:00:00.250Z`: what the server's `start` parameter reads.
    static func iso(_ seconds: Double) -> String {
        Timestamp.format(secondsSince1970: seconds, utcOffsetSeconds: 0)
    }
}
