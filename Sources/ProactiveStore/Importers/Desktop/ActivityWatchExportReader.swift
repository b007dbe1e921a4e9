import Foundation
import ProactiveCore

// MARK: - ActivityWatch export

/// Reads an ActivityWatch export (`GET /api/0/export`, or the web UI's
/// "Export all buckets as JSON") into app-switch donations.
///
/// The file is `{"buckets": {ID: {"type": ..., "hostname": ..., "events": [...]}}}`.
/// Each `currentwindow` bucket's events (any order; the export lists them newest
/// first) go through `ActivityWatchSwitchFilter`, oldest first, with the AFK
/// periods of the `afkstatus` buckets of the same host. Other buckets are
/// counted and skipped. A malformed event is named `bucket ID event N`
/// (N counts from 1 in the file's order) and skipped.
///
/// ```swift
/// let summary = try ActivityWatchExportReader.read(path: "aw-export.json",
///                                                  options: ActivityWatchOptions(timeZone: .current)) { print($0) }
/// ```
package enum ActivityWatchExportReader {
    package static let format = "activitywatch"
    package static let windowType = "currentwindow"
    package static let afkType = "afkstatus"

    /// - Throws: `StoreError.io` when the file cannot be read, is not JSON (the byte where it
    ///   fails is named) or has no `buckets` object; whatever `onProblem` or `emit` throws.
    package static func read(path: String, options: ActivityWatchOptions,
                            onProblem: (DeviceLogProblem) throws -> Void = { _ in },
                            emit: (Donation) throws -> Void) throws -> DeviceLogSummary {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StoreError(.io, "cannot read \(path): no such file or not readable")
        }
        let json: JSONValue
        do {
            json = try data.withUnsafeBytes { bytes throws(JSONParseError) in try JSONParser.parse(bytes, maximumDepth: 64) }
        } catch {
            throw StoreError(.io, "cannot read \(path): \(error)")
        }
        guard case let .object(buckets)? = json["buckets"] else {
            throw StoreError(.io, "cannot read \(path): not an ActivityWatch export (no \"buckets\" object at the top)")
        }
        var summary = DeviceLogSummary(format: format)
        func record(_ problem: DeviceLogProblem) throws {
            summary.record(problem)
            try onProblem(problem)
        }
        // AFK periods by host.
        var afkByHost: [String: [ActivityWatchEvent]] = [:]
        for (id, bucket) in buckets where bucket["type"] == .string(afkType) {
            for (index, event) in events(bucket).enumerated() {
                switch ActivityWatchEvent.parse(event, key: "status", row: "bucket \(id) event \(index + 1)") {
                case let .success(value): afkByHost[host(bucket), default: []].append(value)
                case let .failure(problem): try record(problem)
                }
            }
        }
        for (id, bucket) in buckets.sorted(by: { $0.0 < $1.0 }) {
            if bucket["type"] == .string(afkType) { continue }  // read above
            guard bucket["type"] == .string(windowType) else {
                let type: String = if case let .string(name)? = bucket["type"] { name } else { "no type" }
                summary.skip("bucket of type \(type) (\(events(bucket).count) events)")
                continue
            }
            var parsed: [ActivityWatchEvent] = []
            for (index, event) in events(bucket).enumerated() {
                switch ActivityWatchEvent.parse(event, key: "app", row: "bucket \(id) event \(index + 1)") {
                case let .success(value): parsed.append(value)
                case let .failure(problem):
                    summary.rowsRead += 1
                    try record(problem)
                }
            }
            var filter = ActivityWatchSwitchFilter(bucket: id, options: options, afk: afkByHost[host(bucket)] ?? [])
            for event in parsed.sorted(by: { ($0.start, $0.row) < ($1.start, $1.row) }) {
                summary.rowsRead += 1
                switch filter.offer(event, final: true) {
                case let .donation(donation):
                    summary.kept += 1
                    try emit(donation)
                case let .dropped(reason): summary.drop(reason)
                case let .skipped(reason): summary.skip(reason)
                case let .problem(problem): try record(problem)
                case .open: break  // not with final: true
                }
            }
        }
        summary.notes.append("minimum dwell \(ActivityWatchSwitchFilter.seconds(options.minimumDwell)), same app again after \(Int(options.idleWindow / 60)) min idle"
                             + (options.keepAFK ? ", AFK kept" : ", AFK skipped") + "; time zone \(options.timeZone.identifier)")
        return summary
    }

    static func events(_ bucket: JSONValue) -> [JSONValue] {
        if case let .array(events)? = bucket["events"] { return events }
        return []
    }

    static func host(_ bucket: JSONValue) -> String {
        if case let .string(name)? = bucket["hostname"] { return name }
        return ""
    }
}
