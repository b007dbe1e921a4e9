import Foundation
import ProactiveCore

// MARK: - Logged events

/// One learned event in compact form, as a model keeps it to undo it later.
public struct LoggedEvent: Sendable, Hashable {
    public var target: TargetIndex
    /// Seconds since 1970 (UTC).
    public var time: Double
    public var utcOffset: Int?
    /// Known context values, sorted.
    public var context: [ContextColumn]
    public var weight: Double

    public init(target: TargetIndex, time: Double, utcOffset: Int?, context: [ContextColumn], weight: Double) {
        self.target = target
        self.time = time
        self.utcOffset = utcOffset
        self.context = context
        self.weight = weight
    }

    public var date: Date { Date(timeIntervalSince1970: time) }
}

extension FeatureSpace {
    /// The compact form of `event` when its target and every context value are known, else nil.
    public func loggedEvent(for event: Event) -> LoggedEvent? {
        guard let target = index(of: event.target) else { return nil }
        var columns: [ContextColumn] = []
        for (key, value) in event.context {
            guard let column = column(key: key, value: value) else { return nil }
            columns.append(column)
        }
        return LoggedEvent(target: target, time: event.date.timeIntervalSince1970, utcOffset: event.utcOffset,
                           context: columns.sorted(), weight: event.weight)
    }
}

// MARK: - Event log

/// A user's learned events in a canonical order: by time, then target key,
/// context and weight, so the same events in any insertion order give the same log.
public struct EventLog: Sendable, Equatable {
    public private(set) var events: [LoggedEvent] = []

    public init() {}

    public init(events: [LoggedEvent], space: FeatureSpace) {
        self.events = events.sorted { Self.precedes($0, $1, space) }
    }

    /// Events already in canonical order (checked by the caller).
    init(canonical events: [LoggedEvent]) {
        self.events = events
    }

    public var count: Int { events.count }
    public var isEmpty: Bool { events.isEmpty }
    public var last: LoggedEvent? { events.last }
    public subscript(position: Int) -> LoggedEvent { events[position] }

    /// The canonical order.
    public static func precedes(_ a: LoggedEvent, _ b: LoggedEvent, _ space: FeatureSpace) -> Bool {
        if a.time != b.time { return a.time < b.time }
        if a.target != b.target { return space.target(at: a.target) < space.target(at: b.target) }
        if a.context != b.context {
            let left = a.context.map { space.contextValue(at: $0).description }
            let right = b.context.map { space.contextValue(at: $0).description }
            return left.lexicographicallyPrecedes(right)
        }
        if a.weight != b.weight { return a.weight < b.weight }
        return (a.utcOffset ?? Int.min) < (b.utcOffset ?? Int.min)
    }

    /// Inserts `event` at its canonical position. - Returns: the position.
    /// - Complexity: O(log n) to find, O(n) to shift (O(1) when appending in time order).
    @discardableResult
    public mutating func insert(_ event: LoggedEvent, space: FeatureSpace) -> Int {
        if let last = events.last, !Self.precedes(event, last, space) {
            events.append(event)
            return events.count - 1
        }
        var low = 0
        var high = events.count
        while low < high {
            let mid = (low + high) / 2
            if Self.precedes(events[mid], event, space) || events[mid] == event { low = mid + 1 } else { high = mid }
        }
        events.insert(event, at: low)
        return low
    }

    /// The position of an event equal to `event` (time, target, context, weight), if any.
    public func position(of event: LoggedEvent) -> Int? {
        var low = 0
        var high = events.count
        while low < high {
            let mid = (low + high) / 2
            if events[mid].time < event.time { low = mid + 1 } else { high = mid }
        }
        var position = low
        while position < events.count, events[position].time == event.time {
            let candidate = events[position]
            if candidate.target == event.target, candidate.context == event.context, candidate.weight == event.weight {
                return position
            }
            position += 1
        }
        return nil
    }

    public mutating func remove(at position: Int) { events.remove(at: position) }

    /// The latest event at or before `date` (a moment's previous target when it carries none).
    /// - Complexity: O(log n).
    public func latest(atOrBefore date: Date) -> (target: TargetIndex, date: Date)? {
        let time = date.timeIntervalSince1970
        var low = 0
        var high = events.count
        while low < high {
            let mid = (low + high) / 2
            if events[mid].time <= time { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return nil }
        return (events[low - 1].target, events[low - 1].date)
    }

    /// Rewrites every event's indices (after the space shrank); events mapped to nil are dropped.
    public mutating func remap(targets targetMap: [Int?], columns columnMap: [Int?]) {
        events = events.compactMap { event in
            guard let target = targetMap[event.target.rawValue] else { return nil }
            var copy = event
            copy.target = TargetIndex(target)
            copy.context = event.context.compactMap { columnMap[$0.rawValue].map(ContextColumn.init) }.sorted()
            return copy
        }
    }
}
