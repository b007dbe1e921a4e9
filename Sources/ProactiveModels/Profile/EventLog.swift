import Foundation
import ProactiveCore

// MARK: - Logged events

/// What `EventLog.forEachUse` hands over of one event: everything but its context, so a saved log's
/// records are read in place without an array per event.
package struct LoggedUse: Sendable, Equatable {
    package var target: TargetIndex
    /// Seconds since 1970 (UTC).
    package var time: Double
    package var utcOffset: Int?
    package var weight: Double

    package var date: Date { Date(timeIntervalSince1970: time) }
}

/// One learned event in compact form, as a model keeps it to undo it later.
package struct LoggedEvent: Sendable, Hashable {
    package var target: TargetIndex
    /// Seconds since 1970 (UTC).
    package var time: Double
    package var utcOffset: Int?
    /// Known context values, sorted.
    package var context: [ContextColumn]
    package var weight: Double

    package init(target: TargetIndex, time: Double, utcOffset: Int?, context: [ContextColumn], weight: Double) {
        self.target = target
        self.time = time
        self.utcOffset = utcOffset
        self.context = context
        self.weight = weight
    }

    package var date: Date { Date(timeIntervalSince1970: time) }

    /// The event without its context (`EventLog.forEachUse`).
    var use: LoggedUse { LoggedUse(target: target, time: time, utcOffset: utcOffset, weight: weight) }
}

extension FeatureSpace {
    /// The compact form of `event` when its target and every context value are known, else nil.
    package func loggedEvent(for event: Event) -> LoggedEvent? {
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
///
/// A log read from a saved model keeps its events as saved (`SavedEvents`)
/// and decodes them only when something reads them one by one: a refit,
/// an explanation, forgetting, an event inserted before the newest one. A
/// query at the newest moment and learning a newer event (the usual fold)
/// need only the last event and the counts the reading scan took, so loading
/// a heavy user's state does not build an array of tens of thousands of events.
public struct EventLog: Sendable, Equatable {
    /// Saved events not decoded into `tail`, all before it in canonical order.
    private var saved: SavedEvents?
    /// Decoded events: all of them when `saved` is nil, else those learned after it.
    private(set) var tail: [LoggedEvent] = []

    package init() {}

    package init(events: [LoggedEvent], space: FeatureSpace) {
        tail = events.sorted { Self.precedes($0, $1, space) }
    }

    /// Saved events, decoded on first use.
    init(saved: SavedEvents) {
        self.saved = saved.count > 0 ? saved : nil
    }

    /// The events in canonical order. Decodes a saved log (once, shared by its copies).
    package var events: Events { Events(head: saved?.decoded() ?? [], tail: tail) }

    package var count: Int { (saved?.count ?? 0) + tail.count }

    /// Calls `body` with the target, time, offset and weight of every event of a target `wanted` marks
    /// (indexed by target; a target past its end is not wanted), in canonical order. A saved log not yet
    /// decoded is read from its records in place (no event is built and the log stays undecoded), so one
    /// pass over a heavy user's log costs a scan, not a decoding.
    ///
    ///     var opens = 0.0
    ///     log.forEachUse(of: wanted) { use in opens += use.weight }
    package func forEachUse(of wanted: [Bool], _ body: (LoggedUse) -> Void) {
        saved?.forEachUse(of: wanted, body)
        for event in tail where event.target.rawValue < wanted.count && wanted[event.target.rawValue] { body(event.use) }
    }

    /// Whether saved events are held as read, not yet decoded (what a plain load and newer folds leave).
    var holdsUndecodedEvents: Bool { saved.map { !$0.isDecoded } ?? false }
    package var isEmpty: Bool { count == 0 }
    package var last: LoggedEvent? { tail.last ?? saved?.last }

    package subscript(position: Int) -> LoggedEvent {
        guard let saved else { return tail[position] }
        if position >= saved.count { return tail[position - saved.count] }
        return position == saved.count - 1 ? saved.last : saved.decoded()[position]
    }

    /// How many events each target has and how many use each context column
    /// (`targets` and `columns` long), without decoding a saved log.
    func uses(targets: Int, columns: Int) -> (events: [Int], context: [Int]) {
        var events = [Int](repeating: 0, count: targets)
        var context = [Int](repeating: 0, count: columns)
        if let saved {
            for (target, n) in saved.targetCounts.enumerated() { events[target] += n }
            for (column, n) in saved.columnUses.enumerated() { context[column] += n }
        }
        for event in tail {
            events[event.target.rawValue] += 1
            for column in event.context { context[column.rawValue] += 1 }
        }
        return (events, context)
    }

    /// Decodes a saved head into the array every other mutation works on.
    private mutating func materialize() {
        guard let saved else { return }
        tail = saved.decoded() + tail
        self.saved = nil
    }

    /// The canonical order.
    package static func precedes(_ a: LoggedEvent, _ b: LoggedEvent, _ space: FeatureSpace) -> Bool {
        if a.time != b.time { return a.time < b.time }
        if a.target != b.target { return space.target(at: a.target) < space.target(at: b.target) }
        if a.context != b.context {
            // Values in `ContextValue` order, not column order: columns are numbered as values were
            // first learned, and the order must not depend on that.
            let left = a.context.map { space.contextValue(at: $0) }.sorted().map(\.description)
            let right = b.context.map { space.contextValue(at: $0) }.sorted().map(\.description)
            return left.lexicographicallyPrecedes(right)
        }
        if a.weight != b.weight { return a.weight < b.weight }
        return (a.utcOffset ?? Int.min) < (b.utcOffset ?? Int.min)
    }

    /// Inserts `event` at its canonical position. - Returns: the position.
    /// - Complexity: O(1) when appending in time order (a saved log stays undecoded);
    ///   else O(log n) to find and O(n) to shift.
    @discardableResult
    package mutating func insert(_ event: LoggedEvent, space: FeatureSpace) -> Int {
        if let last, !Self.precedes(event, last, space) {
            tail.append(event)
            return count - 1
        }
        materialize()
        var low = 0
        var high = tail.count
        while low < high {
            let mid = (low + high) / 2
            if Self.precedes(tail[mid], event, space) || tail[mid] == event { low = mid + 1 } else { high = mid }
        }
        tail.insert(event, at: low)
        return low
    }

    /// The position of an event equal to `event` (time, target, context, weight), if any.
    package func position(of event: LoggedEvent) -> Int? {
        let events = events
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

    package mutating func remove(at position: Int) {
        materialize()
        tail.remove(at: position)
    }

    /// The latest event at or before `date` (a moment's previous target when it carries none).
    /// - Complexity: O(1) for a moment at or after the newest event, else O(log n)
    ///   (plus decoding a saved log once when the event is in it).
    package func latest(atOrBefore date: Date) -> (target: TargetIndex, date: Date)? {
        let time = date.timeIntervalSince1970
        if let last, last.time <= time { return (last.target, last.date) }
        if let first = tail.first, first.time <= time || saved == nil {
            return Self.latest(in: tail, atOrBefore: time)
        }
        guard let saved else { return nil }
        if saved.last.time <= time { return (saved.last.target, saved.last.date) }
        return Self.latest(in: saved.decoded(), atOrBefore: time)
    }

    private static func latest(in events: [LoggedEvent], atOrBefore time: Double) -> (target: TargetIndex, date: Date)? {
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
    package mutating func remap(targets targetMap: [Int?], columns columnMap: [Int?]) {
        materialize()
        tail = tail.compactMap { event in
            guard let target = targetMap[event.target.rawValue] else { return nil }
            var copy = event
            copy.target = TargetIndex(target)
            copy.context = event.context.compactMap { columnMap[$0.rawValue].map(ContextColumn.init) }.sorted()
            return copy
        }
    }

    public static func == (lhs: EventLog, rhs: EventLog) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.saved === rhs.saved { return lhs.tail == rhs.tail }
        return lhs.events.elementsEqual(rhs.events)
    }

    /// For encoding: the saved head as records still undecoded or as events (nil when there is none);
    /// `tail` follows it.
    var savedHead: SavedEvents.Form? { saved?.form }

    // MARK: Events

    /// A log's events in canonical order: a decoded saved head, then the events learned after it.
    package struct Events: RandomAccessCollection, Sendable {
        let head: [LoggedEvent]
        let tail: [LoggedEvent]

        package var startIndex: Int { 0 }
        package var endIndex: Int { head.count + tail.count }
        package subscript(position: Int) -> LoggedEvent {
            position < head.count ? head[position] : tail[position - head.count]
        }
    }
}

// MARK: - Saved events

/// A saved log's records as read, checked (indices, values, canonical order)
/// by one scan that also counted each target's events, each context column's
/// uses and kept the newest event; decoded into `LoggedEvent`s on first use,
/// which then replace the records (a held model does not keep both).
/// Shared by every copy of the log (a reference), so it is decoded at most once.
final class SavedEvents: @unchecked Sendable {
    /// The records (`EventLog` coding, without the leading count), or the events decoded from them,
    /// or neither: a model's light part read alone (`ModelArchive.decodeForScoring`) has only the counts.
    enum Form {
        case records([UInt8])
        case events([LoggedEvent])
        case absent
    }

    let count: Int
    let last: LoggedEvent
    let targetCounts: [Int]
    let columnUses: [Int]
    private let decode: @Sendable ([UInt8], Int) -> [LoggedEvent]
    private let lock = NSLock()
    private var held: Form

    init(records: [UInt8], count: Int, last: LoggedEvent, targetCounts: [Int], columnUses: [Int],
         decode: @escaping @Sendable ([UInt8], Int) -> [LoggedEvent]) {
        held = .records(records)
        self.count = count
        self.last = last
        self.targetCounts = targetCounts
        self.columnUses = columnUses
        self.decode = decode
    }

    /// A log whose records were not read: its counts and newest event only.
    init(absent count: Int, last: LoggedEvent, targetCounts: [Int], columnUses: [Int]) {
        held = .absent
        self.count = count
        self.last = last
        self.targetCounts = targetCounts
        self.columnUses = columnUses
        decode = { _, _ in [] }
    }

    var form: Form {
        lock.lock()
        defer { lock.unlock() }
        return held
    }

    var isDecoded: Bool {
        if case .events = form { return true }
        return false
    }

    /// The events of the targets `wanted` marks, but their context, in order: from the decoded events when
    /// they are held, else read from the records in place (they stay undecoded).
    func forEachUse(of wanted: [Bool], _ body: (LoggedUse) -> Void) {
        switch form {
        case let .events(events):
            for event in events where event.target.rawValue < wanted.count && wanted[event.target.rawValue] { body(event.use) }
        case let .records(records):
            EventLog.visitUses(records: records, count: count, of: wanted, body)
        case .absent:
            preconditionFailure("a model read for scoring only (without its log records) was asked for its events")
        }
    }

    /// Every event, decoded once.
    func decoded() -> [LoggedEvent] {
        lock.lock()
        defer { lock.unlock() }
        switch held {
        case let .events(events):
            return events
        case let .records(records):
            let events = decode(records, count)
            held = .events(events)
            return events
        case .absent:
            preconditionFailure("a model read for scoring only (without its log records) was asked for its events")
        }
    }
}
