import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - Focus state from the store

/// What the Focus commands share: the store's Focus rows turned into the
/// pure `FocusTimeline`, and the way they print.
struct FocusSession {
    let engine: Engine

    /// - Parameter appMode: `.scoped` for commands that limit themselves to the acting app's filter.
    init(_ options: StoreOptions, mode: StoreOpenMode = .createIfMissing, appMode: StoreOptions.AppMode = .refused) throws {
        engine = try options.openEngine(mode, appMode: appMode)
    }

    // MARK: Loading

    /// The schedules (with their row ids, same order) and manual changes as a timeline.
    func timeline() throws -> (timeline: FocusTimeline, ids: [Int64]) {
        let focus = try engine.focusTimeline()
        return (focus.timeline, focus.ids)
    }

    // MARK: Printing

    /// `2026-11-16T09:00:00-08:00`: in `offset` (the offset a `--at` date was written in) when
    /// given, else in this machine's zone at that instant.
    static func format(_ date: Date, offset: Int? = nil) -> String {
        Timestamp.format(secondsSince1970: date.timeIntervalSince1970, utcOffsetSeconds: offset ?? TimeZone.current.secondsFromGMT(for: date))
    }

    /// `alwaysUseDarkMode=Off, account=Personal` in declaration order.
    static func describe(_ values: [String: ParameterValue], filter: FocusFilter?) -> String {
        guard !values.isEmpty else { return "(nothing set)" }
        let order = filter?.parameters.map(\.name) ?? []
        let names = order.filter { values[$0] != nil } + values.keys.filter { !order.contains($0) }.sorted()
        return names.map { name in
            let text = filter?.parameter(named: name)?.displayText(values[name]!) ?? values[name]!.displayText
            return "\(name)=\(text)"
        }.joined(separator: ", ")
    }

    /// One line per `perform()` call.
    static func describe(_ event: FocusFilterPerform, filter: FocusFilter?) -> String {
        "perform \(event.app) [\(event.reason.rawValue), Focus \(event.focus ?? "none")]: \(describe(event.values, filter: filter))"
    }

    /// Why the state holds: "set by hand at ...", "schedule 3 (Mon-Fri 09:00-17:30 ...)".
    static func describe(_ state: FocusState, timeline: FocusTimeline, ids: [Int64], offset: Int? = nil) -> String {
        var text: String
        switch state.source {
        case .none: text = "no Focus"
        case let .manual(since): text = "\(state.focus ?? "off") (set by hand at \(format(since, offset: offset))"
        case let .schedule(index): text = "\(state.focus!) (schedule \(ids[index]): \(timeline.schedules[index].summary)"
        }
        if case .none = state.source {
            if let until = state.until { text += " (until \(format(until, offset: offset)))" }
            return text
        }
        if let until = state.until { text += "; until \(format(until, offset: offset))" }
        return text + ")"
    }
}

// MARK: - Errors

extension FocusError {
    /// The error as a command failure, prefixed by a file name when the input came from one.
    func failure(file: String? = nil) -> CommandFailure {
        CommandFailure(description: file.map { "\($0): \(description)" } ?? description)
    }
}
