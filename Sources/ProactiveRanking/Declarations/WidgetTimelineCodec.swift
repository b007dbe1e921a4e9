import Foundation
import ProactiveCore

// MARK: - Widget timelines JSON

/// Reads and writes widget timelines (`proactive timeline set FILE`).
///
/// A file holds one timeline object or an array of them:
/// ```json
/// {"app": "com.example.bank",
///  "widgetKind": "recentPurchases",
///  "configuration": {"intent": "ViewRecentPurchases", "parameters": {"card": "visa"}},
///  "entries": [
///    {"date": "2026-11-20T08:15:00-08:00", "score": 0},
///    {"date": "2026-11-20T09:41:00-08:00", "score": 52.6, "duration": 1800},
///    {"date": "2026-11-20T12:00:00-08:00"}]}
/// ```
/// - `app`, `widgetKind` (required) and `configuration` (optional, for
///   intent-configured widgets) name the widget.
/// - Each entry has a `date` (ISO 8601 with offset, or Unix seconds); `score`
///   (>= 0, any consistent scale) gives it relevance; `duration` (seconds >= 0,
///   default 0 = until the next entry with relevance) needs a `score`.
///   An entry without `score` carries no relevance.
/// - Setting a widget's timeline replaces its previous one.
package enum WidgetTimelineCodec {
    /// - Throws: `DeclarationError` naming the JSON path (prefixed `[i]` for arrays).
    package static func decode(_ text: String) throws(DeclarationError) -> [WidgetTimeline] {
        let json = try DeclarationReader.parse(text)
        switch json {
        case let .array(elements):
            var timelines: [WidgetTimeline] = []
            for (index, element) in elements.enumerated() { timelines.append(try decodeTimeline(element, path: "[\(index)]")) }
            return timelines
        case .object:
            return [try decodeTimeline(json, path: "")]
        default:
            throw DeclarationError(path: "", reason: "must be a timeline object or an array of them, found \(json.kindName)")
        }
    }

    static func decodeTimeline(_ value: JSONValue, path: String) throws(DeclarationError) -> WidgetTimeline {
        let reader = try DeclarationReader(value, path: path, allowed: ["app", "widgetKind", "configuration", "entries"])
        guard let app = try reader.bundleIdentifier("app") else { throw DeclarationError(path: reader.at("app"), reason: "missing (required)") }
        let widget = WidgetID(app: app, kind: try reader.widgetKind("widgetKind"),
                              configuration: try reader.configuration("configuration"))
        guard let elements = try reader.array("entries") else { throw DeclarationError(path: reader.at("entries"), reason: "missing (required)") }
        var entries: [TimelineEntry] = []
        for (index, element) in elements.enumerated() {
            let entry = try DeclarationReader(element, path: reader.at("entries") + "[\(index)]", allowed: ["date", "score", "duration"])
            let date = try entry.requiredDate("date")
            let score = try entry.number("score")
            let duration = try entry.number("duration")
            if let score, !(score >= 0) { throw DeclarationError(path: entry.at("score"), reason: "must be >= 0, found \(score)") }
            if let duration, !(duration >= 0) { throw DeclarationError(path: entry.at("duration"), reason: "must be >= 0 seconds, found \(duration)") }
            if duration != nil, score == nil { throw DeclarationError(path: entry.at("duration"), reason: "needs a \"score\" (an entry without score carries no relevance)") }
            entries.append(TimelineEntry(date: date, relevance: score.map { EntryRelevance(score: $0, duration: duration ?? 0) }))
        }
        do {
            return try WidgetTimeline(widget: widget, entries: entries)
        } catch {
            throw DeclarationError(path: DeclarationReader.join(path, error.path), reason: error.reason)
        }
    }

    /// The canonical JSON object of one timeline (dates written at `utcOffset`).
    package static func encode(_ timeline: WidgetTimeline, utcOffset: Int = 0) -> String {
        JSONWriter.string(json(timeline, utcOffset: utcOffset))
    }

    static func json(_ timeline: WidgetTimeline, utcOffset: Int) -> JSONValue {
        var members: [(String, JSONValue)] = [("app", .string(timeline.widget.app)), ("widgetKind", .string(timeline.widget.kind))]
        if let configuration = timeline.widget.configuration { members.append(("configuration", DeclarationWriter.configuration(configuration))) }
        members.append(("entries", .array(timeline.entries.map { entry in
            var fields: [(String, JSONValue)] = [("date", DeclarationWriter.date(entry.date, utcOffset: utcOffset))]
            if let relevance = entry.relevance {
                fields.append(("score", DeclarationWriter.number(relevance.score)))
                if relevance.duration > 0 { fields.append(("duration", DeclarationWriter.number(relevance.duration))) }
            }
            return .object(fields)
        })))
        return .object(members)
    }
}
