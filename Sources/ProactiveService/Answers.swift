import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine

// MARK: - The routes' answers, as Codable types

// Members are written in declaration order by `JSONResponseEncoder`, nil as null; each type is
// the shape `openapi.yaml` gives its route. Values the engine already writes as JSON (a
// suggestion, a Focus filter, an intent definition) are carried as `JSONValue`.

/// `GET /healthz`.
struct HealthAnswer: ResponseEncodable {
    var status = "ok"
}

/// An instant as the API writes it: UTC with `Z`, or with the offset the answer is on.
struct Instant: Encodable {
    var date: Date
    var utcOffset = 0

    /// The instant as the API writes it (`Timestamp.format`).
    var text: String { Timestamp.format(secondsSince1970: date.timeIntervalSince1970, utcOffsetSeconds: utcOffset) }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

/// `POST /v1/donations` with a batch (an array, JSON Lines or a JSON text sequence): the tallies and,
/// line by line, whether the line was stored, a duplicate, or rejected and why.
struct BatchAnswer: ResponseEncodable {
    struct Line: Encodable {
        enum Status: String, Encodable { case stored, duplicate, rejected }

        /// From 1: the line (JSON Lines), item (array) or record (JSON text sequence).
        var line: Int
        var status: Status
        /// Why a rejected line was (left out otherwise).
        var reason: String?
        /// The field at fault, when one is (left out otherwise).
        var field: String?

        enum CodingKeys: String, CodingKey { case line, status, reason, field }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(line, forKey: .line)
            try container.encode(status, forKey: .status)
            if let reason { try container.encode(reason, forKey: .reason) }
            if let field { try container.encode(field, forKey: .field) }
        }
    }

    var stored = 0
    var duplicates = 0
    var rejected = 0
    var results: [Line] = []

    /// Records one line's outcome and counts it.
    mutating func append(line: Int, _ status: Line.Status, reason: String? = nil, field: String? = nil) {
        switch status {
        case .stored: stored += 1
        case .duplicate: duplicates += 1
        case .rejected: rejected += 1
        }
        results.append(Line(line: line, status: status, reason: reason, field: field))
    }
}

/// `DELETE /v1/donations`: how many donations were deleted.
struct DeletedAnswer: ResponseEncodable {
    var deleted: Int
}

/// `POST /v1/predict`: the shape of `proactive predict --json`.
struct PredictAnswer: ResponseEncodable {
    struct Row: Encodable {
        var target: String
        var summary: String
        var probability: Double
        var why: [String]
    }

    var user: String
    var at: Instant
    var clock: String
    var model: String
    var context: JSONValue
    var activity: Double?
    var note: String?
    var suggestions: [Row]
}

/// `POST /v1/suggestions`.
struct SuggestionsAnswer: Encodable {
    var user: String
    var at: Instant
    var model: String
    var suggestions: [JSONValue]

    /// The answer as the JSON value `JSONResponseEncoder` makes of it (members in this order), built
    /// directly: what the route writes, once, as its bytes.
    var json: JSONValue {
        .object([("user", .string(user)), ("at", .string(at.text)), ("model", .string(model)), ("suggestions", .array(suggestions))])
    }
}

/// `GET /v1/stats`: the shape of `proactive stats --json` without the store's path.
struct StatsAnswer: ResponseEncodable {
    struct Tally: Encodable {
        var app: String?
        var user: String?
        var intent: String?
        var rows: Int
        var donations: Int

        enum CodingKeys: String, CodingKey { case user, app, intent, rows, donations }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            if let user { try container.encode(user, forKey: .user) }
            if let app { try container.encode(app, forKey: .app) }
            if let intent { try container.encode(intent, forKey: .intent) }
            try container.encode(rows, forKey: .rows)
            try container.encode(donations, forKey: .donations)
        }
    }

    var rows: Int
    var donations: Int
    var firstDate: Instant?
    var lastDate: Instant?
    var users: [Tally]
    var apps: [Tally]
    var intents: [Tally]

    enum CodingKeys: String, CodingKey {
        case rows, donations, firstDate = "first_date", lastDate = "last_date", users, apps, intents
    }

    init(_ statistics: DonationStatistics) {
        rows = statistics.rows
        donations = statistics.donations
        firstDate = statistics.firstDate.map { Instant(date: $0) }
        lastDate = statistics.lastDate.map { Instant(date: $0) }
        users = statistics.byUser.map { Tally(user: $0.name, rows: $0.rows, donations: $0.donations) }
        apps = statistics.byApp.map { Tally(app: $0.name, rows: $0.rows, donations: $0.donations) }
        intents = statistics.byIntent.map { Tally(app: $0.app ?? "", intent: $0.name, rows: $0.rows, donations: $0.donations) }
    }
}

/// `PUT /v1/apps/{app}/shortcuts`.
struct ShortcutsAnswer: ResponseEncodable {
    var app: String
    var user: String
    var shortcuts: Int
}

/// `PUT /v1/timelines`.
struct TimelinesAnswer: ResponseEncodable {
    struct Widget: Encodable {
        var widget: String
        var entries: Int
    }

    var user: String
    var widgets: [Widget]
}

/// `POST /v1/feedback`.
struct FeedbackAnswer: ResponseEncodable {
    var user: String
    var recorded: Int
    var donated: Int
}

/// `GET /v1/definitions`.
struct DefinitionsAnswer: ResponseEncodable {
    var definitions: [JSONValue]
}

/// `GET /v1/focus/people`.
struct FocusPeopleAnswer: ResponseEncodable {
    var user: String
    var people: [JSONValue]
}

/// `GET` and `PUT /v1/focus`: the Focus on at `at` and what each app's Focus filter applies.
struct FocusStatusAnswer: ResponseEncodable {
    struct App: Encodable {
        var app: String
        var values: JSONValue
        var configured: Bool
        var predicate: String?
        var badge: Int?

        enum CodingKeys: String, CodingKey { case app, values, configured, predicate, badge }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(app, forKey: .app)
            try container.encode(values, forKey: .values)
            try container.encode(configured, forKey: .configured)
            if let predicate { try container.encode(predicate, forKey: .predicate) }
            if let badge { try container.encode(badge, forKey: .badge) }
        }
    }

    var at: Instant
    var focus: String?
    var until: Instant?
    var apps: [App]
}

/// `PUT /v1/apps/{app}/focus-filter`.
struct FocusFilterDeclaredAnswer: ResponseEncodable {
    struct Dropped: Encodable {
        var focus: String
        var parameter: String
    }

    var filter: JSONValue
    var dropped: [Dropped]
}

/// `PATCH /v1/apps/{app}/focus-filter/{focus}`.
struct FocusFilterConfiguredAnswer: ResponseEncodable {
    struct Perform: Encodable {
        var focus: String?
        var values: JSONValue
        var reason: String
    }

    var app: String
    var focus: String
    var values: JSONValue
    var primary: String
    var secondary: String
    var perform: Perform?
}

/// `POST /v1/stack`.
struct StackAnswer: ResponseEncodable {
    struct Candidate: Encodable {
        var widget: String
        var app: String
        var score: Double
        var inStack: Bool
        var why: [String]
    }

    var user: String
    var at: Instant
    var top: String
    var app: String
    var reason: String
    var score: Double
    var why: [String]
    var inserted: [String]
    var skipped: [String]
    var candidates: [Candidate]
}
