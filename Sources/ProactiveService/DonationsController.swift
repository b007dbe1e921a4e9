import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine

// MARK: - Donations in and out: storing (one, an array, JSON Lines, a JSON text sequence), deleting, counting

/// Donations in and out: storing (one, an array, JSON Lines, a JSON text sequence), deleting, counting.
/// Each handler reads the request, makes one Runtime or Engine call and encodes its answer.
struct DonationsController {
    let service: ProactiveService

    var routes: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .post("donations", use: donate)
            .delete("donations", use: deleteDonations)
            .get("stats", use: stats)
    }

    /// One JSON object, a JSON array, JSON Lines (`application/x-ndjson`, `application/jsonl`) or a JSON
    /// text sequence (`application/json-seq`, RFC 7464). One object is answered with the donation: as stored
    /// for the owner's credential, as sent for an app's (the Focus the store fills in is the owner's to read).
    @Sendable func donate(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let body = try await BodyReading.collect(request, maxBody: service.configuration.maxBody)
        let engine = service.engine(context)
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
                let stored = try await service.runtime.donate(donation, timeZone: sent.timeZone, as: engine, now: now)
                service.metrics.donationsStored.increment()
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
        try await service.runtime.adoptTimeZones(zones, as: engine)
        let outcomes = try await service.runtime.donate(good, as: engine, now: now)
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
        service.metrics.donationsStored.increment(by: answer.stored)
        service.metrics.donationsRejected.increment(by: answer.rejected)
        return Response.json(try JSONResponseEncoder.json(answer))
    }

    /// By identifier (`identifier`, repeatable, with `app`), group (with `app`),
    /// or any of `app`, `user`, `after`, `before`; `all=true` for everything the credential may delete.
    @Sendable func deleteDonations(_ request: Request, _ context: ServiceRequestContext) async throws -> DeletedAnswer {
        let query = request.uri.queryParameters
        let known: Set<String> = ["identifier", "group", "app", "user", "after", "before", "all"]
        if let unknown = query.first(where: { !known.contains(String($0.key)) }) {
            throw APIError.badRequest("unknown query parameter \"\(unknown.key)\"", field: String(unknown.key))
        }
        try RequestReading.checkNames(request)
        let identifiers = query.getAll("identifier")
        let group = query.get("group")
        let app = query.get("app")
        let user = query.get("user")
        let engine = service.engine(context)
        // A day or local time is the user's (their midnight), as `proactive delete --user` reads it.
        let after = try query.get("after").map { try BodyReading.date($0, field: "after", user: user, engine: engine) }
        let before = try query.get("before").map { try BodyReading.date($0, field: "before", user: user, engine: engine) }
        let request = DeletionRequest(identifiers: identifiers, group: group, app: app, user: user, after: after, before: before,
                                      all: query.get("all") == "true")
        let deleted = try await service.runtime.delete(request, spelling: { $0 == .all ? "all=true" : $0.rawValue }, as: engine)
        return DeletedAnswer(deleted: deleted)
    }

    /// Donation counts (an app credential: its own only), optionally for one `user` or `app`.
    @Sendable func stats(_ request: Request, _ context: ServiceRequestContext) throws -> StatsAnswer {
        let query = request.uri.queryParameters
        if let unknown = query.first(where: { !["user", "app"].contains(String($0.key)) }) {
            throw APIError.badRequest("unknown query parameter \"\(unknown.key)\"", field: String(unknown.key))
        }
        try RequestReading.checkNames(request)
        var filter = DonationFilter(user: query.get("user"), app: query.get("app"))
        filter = try context.access.scope(filter, to: "count")
        return StatsAnswer(try service.engine(context).statistics(matching: filter))
    }
}
