import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine

// MARK: - The routes' request bodies, as Decodable types

// Each type is the schema `openapi.yaml` gives its route's body, read by `JSONRequestDecoder`: its
// `CodingKeys` are `CaseIterable`, so a member it does not define is refused, named. Checks beyond
// the JSON type (a non-empty name, `k` in range, a readable `at`) are refusals naming the field.

/// `POST /v1/predict`: who, when, in what context, how many; every field optional.
/// `at` is read on the user's clock as the CLI reads `--at` (`Engine.readMoment`): a local time
/// without an offset is the user's local time, an instant is that instant whatever offset it is
/// written in, a bare day is refused.
struct Question: Decodable {
    var user = Donation.defaultUser
    /// `at` as sent, checked by `Engine.parseMoment`; nil: now.
    var at: String?
    /// `at` as parsed when it was checked: read on the user's clock without parsing it again.
    var written: DateText?
    var context: [String: String] = [:]
    var k = 4

    enum CodingKeys: String, CodingKey, CaseIterable { case user, at, context, k }

    /// The question with every field at its default: the default user, now, no context, 4.
    init() {}

    init(from decoder: any Decoder) throws { try self.init(fields: try decoder.container(keyedBy: CodingKeys.self)) }

    /// The question's members among those of a larger body (`SuggestionQuestion`, `StackQuestion`): each of
    /// `user`, `at`, `context`, `k` that `Key` names.
    init<Key: CodingKey>(fields container: KeyedDecodingContainer<Key>) throws {
        if let key = Key(stringValue: "user"), let user = try container.decodeIfPresent(String.self, forKey: key, check: Self.nonEmpty) {
            self.user = user
        }
        if let key = Key(stringValue: "at"), let text = try container.decodeIfPresent(String.self, forKey: key) {
            do { written = try Engine.parseMoment(text) } catch { throw container.refuse(key, error.reason) }
            at = text
        }
        if let key = Key(stringValue: "context") { context = try container.decodeIfPresent([String: String].self, forKey: key) ?? [:] }
        if let key = Key(stringValue: "k"), let k = try container.decodeIfPresent(Int.self, forKey: key, check: Engine.Limits.kProblem) {
            self.k = k
        }
    }

    /// A user names whom the question is about: non-empty, no control characters (`IdentifierRules.userProblem`).
    static func nonEmpty(_ text: String) -> String? { IdentifierRules.userProblem(text) }

    /// The moment on the user's clock (`Engine.readMoment`), read from the held model `live`.
    func moment(_ engine: Engine, live: LiveModel, now: Date = Date()) throws -> Engine.ReadDate {
        do {
            if let at, let written { return try engine.readMoment(written, text: at, live: live) }
            return try engine.readMoment(at, live: live, now: now)
        } catch let error as DonationLineError {
            throw APIError.badRequest(error.reason, field: "at")
        }
    }
}

/// `POST /v1/suggestions`: a `Question` and `developer`, which lifts the floors.
struct SuggestionQuestion: Decodable {
    var question: Question
    var developer: Bool

    enum CodingKeys: String, CodingKey, CaseIterable { case user, at, context, k, developer }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        question = try Question(fields: container)
        developer = try container.decodeIfPresent(Bool.self, forKey: .developer) ?? false
    }

    /// The request's body, parsed once: read straight from its JSON when every member is one the route
    /// defines, of its type and accepted (`init(wellFormed:)`), else by `JSONRequestDecoder` from the same
    /// JSON, which refuses it naming the field at fault. The same question either way.
    /// - Throws: `APIError` 400 (`invalid_json`, or the member at fault), 413 for a body over `maxUploadSize`.
    static func read(_ request: Request, context: some RequestContext) async throws -> SuggestionQuestion {
        let body = try await BodyReading.collect(request, maxBody: context.maxUploadSize)
        let json = body.readableBytes > 0 ? try BodyReading.json(body) : .object([])
        return try SuggestionQuestion(wellFormed: json) ?? JSONRequestDecoder.decode(SuggestionQuestion.self, from: json)
    }

    /// The question a well-formed body asks, as `init(from:)` reads it (a member given twice: its last
    /// value); nil when any member is unknown, of another type or refused (a bad `user`, `at` or `k`).
    init?(wellFormed json: JSONValue) {
        guard case let .object(members) = json else { return nil }
        var question = Question()
        var developer = false
        for (name, value) in members {
            switch (name, value) {
            case let ("user", .string(user)):
                guard Question.nonEmpty(user) == nil else { return nil }
                question.user = user
            case let ("at", .string(text)):
                guard let written = try? Engine.parseMoment(text) else { return nil }
                question.at = text
                question.written = written
            case let ("context", .object(pairs)):
                var context: [String: String] = [:]
                for (key, value) in pairs {
                    guard case let .string(text) = value else { return nil }
                    context[key] = text
                }
                question.context = context
            case let ("k", .number(_, .some(integer))):
                guard let k = Int(exactly: integer), Engine.Limits.kProblem(k) == nil else { return nil }
                question.k = k
            case let ("developer", .bool(flag)):
                developer = flag
            default:
                return nil
            }
        }
        self.question = question
        self.developer = developer
    }
}

/// `POST /v1/stack`: the widgets of a stack, its settings, and who, when and in what context (no `k`).
struct StackQuestion: Decodable {
    var question: Question
    /// As `proactive stack --widgets` names them (`app/kind` when a kind alone names widgets of several apps).
    var widgets: [String]
    var settings = StackSettings()

    enum CodingKeys: String, CodingKey, CaseIterable { case user, at, context, widgets, smartRotate, widgetSuggestions, developer }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        widgets = try container.decode([String].self, forKey: .widgets)
        if widgets.isEmpty { throw container.refuse(.widgets, "name the stack's widgets") }
        if let index = widgets.firstIndex(of: "") {
            throw RequestBodyError("widget names are not empty", at: container.codingPath + [CodingKeys.widgets, PathKey(index: index)])
        }
        question = try Question(fields: container)
        settings.smartRotate = try container.decodeIfPresent(Bool.self, forKey: .smartRotate) ?? settings.smartRotate
        settings.widgetSuggestions = try container.decodeIfPresent(Bool.self, forKey: .widgetSuggestions) ?? settings.widgetSuggestions
        settings.developerMode = try container.decodeIfPresent(Bool.self, forKey: .developer) ?? settings.developerMode
    }
}

/// `PUT /v1/focus`: `{"focus": "work"}` turns a Focus on, `{"focus": null}` turns Focus off; `at` (an instant, default now).
struct FocusChange: Decodable {
    /// The Focus to turn on; nil: none.
    var focus: String?
    var at: Date?

    enum CodingKeys: String, CodingKey, CaseIterable { case focus, at }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.focus) else { throw container.refuse(.focus, "say which Focus to turn on, or null for none") }
        if try !container.decodeNil(forKey: .focus) {
            let name = try container.decode(String.self, forKey: .focus)
            do { focus = try FocusName.validated(name) } catch { throw container.refuse(.focus, error.reason) }
        }
        at = try container.instant(.at)
    }
}

/// `POST /v1/notifications`: `{"app": "com.example.mail", "criteria": {"account": "work"}, "at": DATE}`.
struct NotificationQuestion: Decodable {
    var app: String
    var criteria: [String: String]
    /// An instant; nil: now.
    var at: Date?

    enum CodingKeys: String, CodingKey, CaseIterable { case app, criteria, at }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        app = try container.decode(String.self, forKey: .app)
        if app.isEmpty { throw container.refuse(.app, "must be a non-empty bundle identifier") }
        if let problem = IdentifierRules.bundleIdentifierProblem(app) { throw container.refuse(.app, problem) }
        criteria = try container.decodeIfPresent([String: String].self, forKey: .criteria) ?? [:]
        if criteria.keys.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw container.refuse(.criteria, "a criteria key is empty")
        }
        at = try container.instant(.at)
    }
}

/// `PATCH /v1/apps/{app}/focus-filter/{focus}`: `{"set": {"account": "personal", "alwaysUseDarkMode": true},
/// "unset": ["status"]}`; values are read as the command line reads them, null (or "") removes one.
struct FocusFilterChange: Decodable {
    /// Values to set, as text, in name order.
    var set: [(name: String, value: String)] = []
    var unset: [String] = []

    enum CodingKeys: String, CodingKey, CaseIterable { case set, unset }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        for (name, value) in try container.decodeIfPresent([String: JSONValue].self, forKey: .set)?.sorted(by: { $0.key < $1.key }) ?? [] {
            guard !name.isEmpty else { throw container.refuse(.set, "parameter names are not empty") }
            switch value {
            case let .string(text): set.append((name, text))
            case let .bool(flag): set.append((name, flag ? "true" : "false"))
            case let .number(number, integer): set.append((name, integer.map { "\($0)" } ?? "\(number)"))
            case .null: unset.append(name)
            default:
                throw RequestBodyError("a value is a string, number, boolean or null, found \(value.kindName)",
                                       at: container.codingPath + [CodingKeys.set, PathKey(name)])
            }
        }
        let names = try container.decodeIfPresent([String].self, forKey: .unset) ?? []
        if names.contains("") { throw container.refuse(.unset, "parameter names are not empty") }
        unset += names
        guard !set.isEmpty || !unset.isEmpty else { throw container.refuse(.set, "give at least one value to set or unset") }
    }
}

extension KeyedDecodingContainer {
    /// The member `key` as an instant (an offset, `Z` or Unix seconds, `BodyReading.date`); nil when absent.
    func instant(_ key: Key) throws -> Date? {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        do { return try BodyReading.date(text, field: key.stringValue) } catch let error as APIError { throw refuse(key, error.message) }
    }
}
