import Foundation
import ProactiveCore

// MARK: - Statistics

/// Counts over the donations a filter matches, for `proactive stats`.
///
/// Every tally has two numbers: `rows` (stored donations) and `donations`
/// (the sum of their `count`, i.e. how many donations the rows stand for).
/// Lists are sorted by `donations` descending, then by name, so output is
/// deterministic.
public struct DonationStatistics: Sendable, Hashable {
    /// A count for one app, intent or user.
    public struct Tally: Sendable, Hashable {
        /// The app for intent tallies (intent names are per app), nil otherwise.
        public var app: String?
        /// The app, intent or user name.
        public var name: String
        public var rows: Int
        public var donations: Int

        public init(app: String? = nil, name: String, rows: Int, donations: Int) {
            self.app = app
            self.name = name
            self.rows = rows
            self.donations = donations
        }
    }

    public var rows: Int
    public var donations: Int
    /// The earliest and latest donation dates, nil when nothing matched.
    public var firstDate: Date?
    public var lastDate: Date?
    public var byApp: [Tally]
    public var byIntent: [Tally]
    public var byUser: [Tally]

    public init(rows: Int = 0, donations: Int = 0, firstDate: Date? = nil, lastDate: Date? = nil,
                byApp: [Tally] = [], byIntent: [Tally] = [], byUser: [Tally] = []) {
        self.rows = rows
        self.donations = donations
        self.firstDate = firstDate
        self.lastDate = lastDate
        self.byApp = byApp
        self.byIntent = byIntent
        self.byUser = byUser
    }

    /// The deterministic order of every tally list.
    package static func sorted(_ tallies: [Tally]) -> [Tally] {
        tallies.sorted {
            if $0.donations != $1.donations { return $0.donations > $1.donations }
            if $0.app != $1.app { return ($0.app ?? "") < ($1.app ?? "") }
            return $0.name < $1.name
        }
    }
}

// MARK: - Building from records

extension DonationStatistics {
    /// Accumulates statistics one record at a time (the in-memory store's path;
    /// the SQLite store computes the same numbers with GROUP BY).
    struct Accumulator {
        private var rows = 0
        private var donations = 0
        private var first: Int64?
        private var last: Int64?
        private var apps: [String: (rows: Int, donations: Int)] = [:]
        private var intents: [IntentName: (rows: Int, donations: Int)] = [:]
        private var users: [String: (rows: Int, donations: Int)] = [:]

        private struct IntentName: Hashable {
            var app: String
            var intent: String
        }

        mutating func add(_ record: DonationRecord) {
            rows += 1
            donations += record.count
            first = min(first ?? record.dateMilliseconds, record.dateMilliseconds)
            last = max(last ?? record.dateMilliseconds, record.dateMilliseconds)
            Self.bump(&apps, record.app, record.count)
            Self.bump(&intents, IntentName(app: record.app, intent: record.intent), record.count)
            Self.bump(&users, record.user, record.count)
        }

        private static func bump<Key: Hashable>(_ table: inout [Key: (rows: Int, donations: Int)], _ key: Key, _ count: Int) {
            let old = table[key] ?? (0, 0)
            table[key] = (old.rows + 1, old.donations + count)
        }

        var statistics: DonationStatistics {
            DonationStatistics(
                rows: rows, donations: donations,
                firstDate: first.map(Date.init(millisecondsSince1970:)), lastDate: last.map(Date.init(millisecondsSince1970:)),
                byApp: sorted(apps.map { Tally(name: $0.key, rows: $0.value.rows, donations: $0.value.donations) }),
                byIntent: sorted(intents.map { Tally(app: $0.key.app, name: $0.key.intent, rows: $0.value.rows, donations: $0.value.donations) }),
                byUser: sorted(users.map { Tally(name: $0.key, rows: $0.value.rows, donations: $0.value.donations) }))
        }
    }
}
