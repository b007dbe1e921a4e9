import Foundation
import Hummingbird
import Logging
import ProactiveCore
import ProactiveEngine
import ProactiveRuntime

// MARK: - The service

/// The engine as an HTTP/JSON service (`proactive serve`): a thin adapter
/// over `Engine` that authenticates each request, scopes it to the acting
/// party (`StoreAccess`, exactly the rules of `--as-app`), and answers with
/// the CLI's formats. `openapi.yaml` at the repository root describes every
/// route; `router().routes` lists them for the test that checks the two agree.
public struct ProactiveService: Sendable {
    public struct Configuration: Sendable {
        /// Largest request body accepted (413 above it; at once when `Content-Length` declares more).
        public var maxBody = 16 << 20
        /// How long a connection may go without a complete request head or another part of a request
        /// (a body chunk) before the server closes it: idle keep-alive connections, half-sent headers
        /// (the header deadline: no part is read before the head is complete) and stalled bodies alike.
        /// A request being answered is never cut. `proactive serve --idle-timeout`.
        public var idleTimeout: Duration = .seconds(10)
        /// Bytes of live models kept in memory.
        public var memoryBudget = 512 << 20
        /// How long declarations, feedback and Focus filters read for a question are reused
        /// (the service's own writes of them take effect at once; another process's within this).
        public var inputsLifetime: Duration = .seconds(1)
        /// How often retention is applied after donations none of which is already past its window (`RetentionSweeper`).
        public var retentionInterval: Duration = .seconds(60)
        public init() {}
    }

    /// The store every request's engine works on.
    public let storage: any StoreBackend
    public let credentials: CredentialStore
    /// Live models, ranking inputs, the donation writer and retention: every write goes through one of its methods, which drops what the write made stale.
    public let runtime: Runtime
    /// Each user's last answer to the suggestions route, reused for the same question.
    public let answers: SuggestionAnswers
    public let metrics: ServiceMetrics
    public let configuration: Configuration
    public let logger: Logger

    /// Users' live models (`runtime.models`).
    public var models: LiveModelCache { runtime.models }
    /// Users' declarations, feedback and the Focus filters (`runtime.inputs`).
    public var inputs: RankingInputsCache { runtime.inputs }
    /// Where batches of donations are written (`runtime.committer`).
    public var committer: DonationCommitter { runtime.committer }

    public init(storage: any StoreBackend, credentials: CredentialStore, configuration: Configuration = Configuration(),
                metrics: ServiceMetrics = ServiceMetrics(), logger: Logger = Logger(label: "proactive.serve")) {
        self.storage = storage
        self.credentials = credentials
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        let answers = SuggestionAnswers()
        self.answers = answers
        var settings = Runtime.Configuration()
        settings.memoryBudget = configuration.memoryBudget
        settings.inputsLifetime = configuration.inputsLifetime
        settings.retentionInterval = configuration.retentionInterval
        // Kept answers were computed from held models and inputs: a change drops those it made stale.
        runtime = Runtime(engine: Engine(storage: storage), configuration: settings, metrics: metrics, logger: logger) { change in
            if change.models { answers.removeAll() } else { answers.drop(users: change.donated) }
        }
    }

    /// The engine acting as the request's credential.
    func engine(_ context: ServiceRequestContext) -> Engine { Engine(storage: storage, access: context.access) }

    // MARK: Donations

    /// One JSON object, a JSON array, JSON Lines (`application/x-ndjson`, `application/jsonl`) or a JSON
    /// text sequence (`application/json-seq`, RFC 7464). One object is answered with the donation: as stored
    /// for the owner's credential, as sent for an app's (the Focus the store fills in is the owner's to read).
    func donate(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let body = try await BodyReading.collect(request, maxBody: configuration.maxBody)
        let engine = engine(context)
        let now = Date()
        if try engine.isRecordingPaused() {
            throw APIError(.conflict, "recording_paused", "recording is paused: nothing was stored (the device owner resumes it)")
        }
        let contentType = request.headers[.contentType]?.lowercased() ?? "application/json"
        let lines = contentType.hasPrefix("application/x-ndjson") || contentType.hasPrefix("application/jsonl")
        var decoded: BodyReading.Numbered = []
        if contentType.hasPrefix("application/json-seq") {
            decoded = BodyReading.records(body)
        } else if lines {
            decoded = BodyReading.lines(body)
        } else {
            let json = try BodyReading.json(body)
            switch json {
            case .object:
                // One donation: all or nothing, refusals are errors.
                let sent: BodyReading.Sent
                do { sent = try BodyReading.donation(json) } catch { throw APIError.badRequest(error.reason, field: error.field) }
                let donation = sent.donation
                let stored = try await runtime.donate(donation, timeZone: sent.timeZone, as: engine, now: now)
                metrics.donationsStored.increment()
                // An app reads back what it sent, not the owner's Focus the store filled in (apps may not read Focus).
                return Response.json(text: DonationLineCodec.encode(context.access.app == nil ? stored : donation), status: .created)
            case let .array(items):
                decoded = items.enumerated().map { index, item in
                    (index + 1, Result { () throws(DonationLineError) in try BodyReading.donation(item) })
                }
            default:
                throw APIError.badRequest("the body must be a donation object, an array of them, or JSON Lines; found \(json.kindName)")
            }
        }
        // A batch: good lines are kept, each line says how it went (as `import` does).
        // Split by moving each line's donation out (`popLast`) rather than copying it (every field retained).
        var good: [Donation] = []
        var zones: [String: String] = [:]  // each user's zone, as the lines state it
        var numbered: [(line: Int, error: DonationLineError?)] = []  // each line: its number, and why it was refused
        good.reserveCapacity(decoded.count)
        numbered.reserveCapacity(decoded.count)
        while let entry = decoded.popLast() {
            switch entry.result {
            case let .success(sent):
                if let zone = sent.timeZone { zones[sent.donation.user] = zone }
                good.append(sent.donation)
                numbered.append((entry.line, nil))
            case let .failure(error): numbered.append((entry.line, error))
            }
        }
        good.reverse()
        numbered.reverse()
        // The zones the lines state become their users' when they have none (only the owner's credential sets them).
        try await runtime.adoptTimeZones(zones, as: engine)
        let outcomes = try await runtime.donate(good, as: engine, now: now)
        good = []
        // Each line's outcome, in line order: a refusal while reading it, else how storing it went.
        var answer = BatchAnswer()
        answer.results.reserveCapacity(numbered.count)
        var next = 0
        for entry in numbered {
            if let error = entry.error {
                answer.append(line: entry.line, .rejected, reason: error.description, field: error.field)
                continue
            }
            defer { next += 1 }
            switch outcomes[next] {
            case .stored: answer.append(line: entry.line, .stored)
            case .duplicate: answer.append(line: entry.line, .duplicate)
            case let .rejected(reason): answer.append(line: entry.line, .rejected, reason: reason)
            }
        }
        metrics.donationsStored.increment(by: answer.stored)
        metrics.donationsRejected.increment(by: answer.rejected)
        return Response.json(try JSONResponseEncoder.json(answer))
    }

    /// By identifier (`identifier`, repeatable, with `app`), group (with `app`),
    /// or any of `app`, `user`, `after`, `before`; `all=true` for everything the credential may delete.
    func deleteDonations(_ request: Request, _ context: ServiceRequestContext) async throws -> DeletedAnswer {
        let query = request.uri.queryParameters
        let known: Set<String> = ["identifier", "group", "app", "user", "after", "before", "all"]
        if let unknown = query.first(where: { !known.contains(String($0.key)) }) {
            throw APIError.badRequest("unknown query parameter \"\(unknown.key)\"", field: String(unknown.key))
        }
        try Self.checkNames(request)
        let identifiers = query.getAll("identifier")
        let group = query.get("group")
        let app = query.get("app")
        let user = query.get("user")
        let engine = engine(context)
        // A day or local time is the user's (their midnight), as `proactive delete --user` reads it.
        let after = try query.get("after").map { try BodyReading.date($0, field: "after", user: user, engine: engine) }
        let before = try query.get("before").map { try BodyReading.date($0, field: "before", user: user, engine: engine) }
        let request = DeletionRequest(identifiers: identifiers, group: group, app: app, user: user, after: after, before: before,
                                      all: query.get("all") == "true")
        let deleted = try await runtime.delete(request, spelling: { $0 == .all ? "all=true" : $0.rawValue }, as: engine)
        return DeletedAnswer(deleted: deleted)
    }

    // MARK: Queries

    /// `{"user": "u1", "at": "2026-11-20T07:30:00-08:00", "context": {"focus": "work"}, "k": 4}`; every field optional (`Question`).
    /// Answers in the shape of `proactive predict --json`.
    func predict(_ request: Request, _ context: ServiceRequestContext) async throws -> PredictAnswer {
        try context.requireOwner(to: "ask for predictions (they read every app's donations)")
        let question = try await request.decode(as: Question.self, context: context)
        let live = try await models.live(user: question.user, waiting: false)
        let engine = engine(context)
        let when = try question.moment(engine, live: live)
        let prediction = try engine.predict(live, at: when.date, utcOffset: when.utcOffset, context: question.context, k: question.k)
        return PredictAnswer(
            user: prediction.user, at: Instant(date: when.date, utcOffset: prediction.moment.utcOffset ?? 0), clock: when.clock,
            model: prediction.model,
            context: .object(prediction.moment.context.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }),
            activity: prediction.activity, note: prediction.notes.isEmpty ? nil : prediction.notes.joined(separator: "; "),
            suggestions: prediction.suggestions.map { row in
                PredictAnswer.Row(target: row.target.rawValue, summary: row.summary, probability: row.probability, why: row.why)
            })
    }

    /// The same question as predict, plus `"developer": true` to lift the floors (`SuggestionQuestion`).
    func suggest(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        try context.requireOwner(to: "ask for suggestions (they read every app's donations)")
        let asked = try await request.decode(as: SuggestionQuestion.self, context: context)
        let question = asked.question
        let engine = engine(context)
        let (session, live, version, stamp) = try await runtime.question(user: question.user, as: engine)
        let when = try question.moment(engine, live: live)
        // The same question about the same model and inputs: the same answer (`SuggestionAnswers`).
        let key = SuggestionAnswers.Key(model: version, inputs: stamp, milliseconds: when.date.millisecondsSince1970,
                                        utcOffset: when.utcOffset, context: question.context, k: question.k, developer: asked.developer)
        if let body = answers.answer(user: question.user, key: key) { return Response.json(body: body) }
        let result = try session.suggest(at: when.date, utcOffset: when.utcOffset, context: question.context, k: question.k,
                                         developerMode: asked.developer)
        let body = Response.jsonBody(try JSONResponseEncoder.json(SuggestionsAnswer(
            user: question.user, at: Instant(date: when.date, utcOffset: result.moment.utcOffset ?? 0), model: result.model,
            suggestions: result.suggestions.map(\.json))))
        answers.keep(user: question.user, key: key, body: body)
        return Response.json(body: body)
    }

    /// Donation counts (an app credential: its own only), optionally for one `user` or `app`.
    func stats(_ request: Request, _ context: ServiceRequestContext) throws -> StatsAnswer {
        let query = request.uri.queryParameters
        if let unknown = query.first(where: { !["user", "app"].contains(String($0.key)) }) {
            throw APIError.badRequest("unknown query parameter \"\(unknown.key)\"", field: String(unknown.key))
        }
        try Self.checkNames(request)
        var filter = DonationFilter(user: query.get("user"), app: query.get("app"))
        filter = try context.access.scope(filter, to: "count")
        return StatsAnswer(try engine(context).statistics(matching: filter))
    }
}

// MARK: - Reading bodies

enum BodyReading {
    /// The request's body, at most `maxBody` bytes.
    /// - Throws: the 413 of a larger body; `APIError` 400 `incomplete_body` when the body could not be
    ///   read to its end (the client closed or broke the connection mid-body): the client's fault, not the server's.
    static func collect(_ request: Request, maxBody: Int) async throws -> ByteBuffer {
        var request = request
        do {
            return try await request.collectBody(upTo: maxBody)
        } catch let error as any HTTPResponseError {
            throw error
        } catch {
            throw APIError(.badRequest, "incomplete_body", "the request body ended before it was complete (the connection closed or failed mid-body)")
        }
    }

    static func json(_ body: ByteBuffer) throws -> JSONValue {
        do {
            return try body.readableBytesView.withContiguousStorageIfAvailable { bytes in
                try JSONParser.parse(UnsafeRawBufferPointer(bytes))
            } ?? JSONParser.parse(String(buffer: body))
        } catch let error as JSONParseError {
            throw APIError(.badRequest, "invalid_json", error.description)
        }
    }

    /// What `lines` and `records` answer: each line's (record's) number and its donation, or why it was refused.
    typealias Numbered = [(line: Int, result: Result<Sent, DonationLineError>)]

    /// A donation as sent, with the user's zone its `timezone` states.
    struct Sent {
        var donation: Donation
        var timeZone: String?
    }

    /// JSON Lines: each non-blank line decoded on its own, numbered from 1 (lines are split on
    /// `\n` in the bytes, a trailing `\r` dropped; blank means only spaces and tabs).
    static func lines(_ body: ByteBuffer) -> Numbered {
        body.withUnsafeReadableBytes { all in
            var result: Numbered = []
            var number = 0
            var start = 0
            while start <= all.count {
                let end = all[start...].firstIndex(of: 0x0a) ?? all.count
                number += 1
                var last = end
                if last > start, all[last - 1] == 0x0d { last -= 1 }
                let line = all[start..<last]
                if !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { result.append((number, decode(line))) }
                start = end + 1
            }
            return result
        }
    }

    /// A JSON text sequence (RFC 7464, `application/json-seq`): each record is RS (0x1E), a JSON text
    /// and LF. Each record is decoded on its own without its RS and the whitespace around its text,
    /// numbered from 1 in the order of the RS bytes (an empty record, RS RS, is counted and skipped).
    /// Text before the first RS is not a record of the sequence: it is refused as record 1.
    static func records(_ body: ByteBuffer) -> Numbered {
        body.withUnsafeReadableBytes { all in
            var result: Numbered = []
            var number = 0
            func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d }
            for (index, record) in all.split(separator: 0x1e, omittingEmptySubsequences: false).enumerated() {
                guard let first = record.firstIndex(where: { !isBlank($0) }), let last = record.lastIndex(where: { !isBlank($0) }) else {
                    if index > 0 { number += 1 }
                    continue
                }
                number += 1
                if index == 0 {
                    result.append((number, .failure(DonationLineError(field: nil, reason: "a JSON text sequence record starts with RS (0x1E); this text has none"))))
                } else {
                    result.append((number, decode(record[first...last])))
                }
            }
            return result
        }
    }

    /// One donation from the bytes of a line or record; an unknown field refuses it (`donation(_:)`).
    private static func decode(_ bytes: Slice<UnsafeRawBufferPointer>) -> Result<Sent, DonationLineError> {
        Result { () throws(DonationLineError) in
            var extras = DonationLineCodec.LineExtras()
            let donation = try DonationLineCodec.decode(UnsafeRawBufferPointer(rebasing: bytes), extras: &extras)
            if let name = extras.unknownFields.first { throw DonationLineCodec.unknownField(name) }
            return Sent(donation: donation, timeZone: extras.timeZone)
        }
    }

    /// One donation object. The service refuses an unknown field (a misspelled `parameters` would
    /// otherwise be stored without its parameters), naming it and the field it is nearest to.
    static func donation(_ json: JSONValue) throws(DonationLineError) -> Sent {
        var extras = DonationLineCodec.LineExtras()
        let donation = try DonationLineCodec.decode(json, extras: &extras)
        if let name = extras.unknownFields.first { throw DonationLineCodec.unknownField(name) }
        return Sent(donation: donation, timeZone: extras.timeZone)
    }

    /// A date field or query parameter: an instant (an offset, `Z` or Unix seconds), or with `user` and
    /// `engine` a local time or a day read on that user's clock (`Engine.readDate`: a day is its local
    /// midnight). Without a user, a local time or day is refused (no clock says which instant it is).
    static func date(_ text: String, field: String, user: String? = nil, engine: Engine? = nil) throws -> Date {
        do {
            let written = try DateText.parse(text)
            if case let .instant(date, _) = written { return date }
            guard let user, let engine else {
                throw DonationLineError(field: field, reason: "\(text) has no offset and no user's clock reads it: give user, or an offset "
                                        + "such as \(text.count == 10 ? text + "T00:00:00Z" : text + "Z")")
            }
            return try engine.readDate(written, text: text, user: user, field: field).date
        } catch let error as DonationLineError {
            throw APIError.badRequest(error.reason, field: field)
        }
    }
}
