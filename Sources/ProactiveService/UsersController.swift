import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine

// MARK: - A user's data as a whole: erasing it

/// A user's data as a whole: erasing it.
/// Each handler reads the request, makes one Runtime or Engine call and encodes its answer.
struct UsersController {
    let service: ProactiveService

    var routes: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .delete("users", use: eraseUser)
            .get("users/{user}/timezone", use: getTimeZone)
    }

    /// `DELETE /v1/users?user=U[&app=A]`: erases what the credential holds of the user
    /// (`Engine.erase(user:app:)`): the owner's credential everything (`proactive forget`), or with
    /// `app` that app's part; an app's credential its own data of the user (donations, feedback,
    /// relevant shortcuts, widget timelines; another `app` is a 403). Held models, inputs and kept
    /// answers are dropped before the answer. `user` is required (no default user: an erasure names
    /// whom it erases).
    /// Answers `{"user": "u", "erased": {"donation": 14, ...}, "total": 16}`.
    @Sendable func eraseUser(_ request: Request, _ context: ServiceRequestContext) async throws -> ErasedAnswer {
        let query = request.uri.queryParameters
        if let unknown = query.first(where: { !["user", "app"].contains(String($0.key)) }) {
            throw APIError.badRequest("unknown query parameter \"\(unknown.key)\"", field: String(unknown.key))
        }
        guard let user = query.get("user") else {
            throw APIError.badRequest("an erasure needs the user it erases (?user=U)", field: "user")
        }
        try RequestReading.checkNames(request)
        let app = query.get("app")
        let erased = try await service.runtime.erase(user: user, app: app, as: service.engine(context))  // held models, inputs and kept answers dropped
        return ErasedAnswer(user: user, erased: erased)
    }

    /// `GET /v1/users/{user}/timezone?at=DATE`: the zone set for the user (null: none) and the clock their local
    /// times are read on at `at` (default now), as `proactive users timezone show` and `predict`'s `clock` say it.
    /// Owner only (the clock of a user without a zone is the offset of their latest donation, any app's).
    /// Answers `{"user": "me", "timezone": "America/Los_Angeles", "at": "2026-11-20T07:30:00-08:00", "clock": "America/Los_Angeles"}`.
    @Sendable func getTimeZone(_ request: Request, _ context: ServiceRequestContext) throws -> TimeZoneAnswer {
        let user = try RequestReading.pathParameter(context, "user")
        if let problem = IdentifierRules.userProblem(user) { throw APIError.badRequest(problem, field: "user") }
        let date = try RequestReading.instant(request)
        let clock = try service.engine(context).userClock(user, at: date)
        return TimeZoneAnswer(user: clock.user, timezone: clock.timeZone, at: Instant(date: date, utcOffset: clock.utcOffset), clock: clock.description)
    }
}

/// `DELETE /v1/users`: the rows erased per table (by table name, sorted), and their total.
struct ErasedAnswer: ResponseEncodable {
    var user: String
    var erased: JSONValue
    var total: Int

    init(user: String, erased: [String: Int]) {
        self.user = user
        self.erased = .object(erased.keys.sorted().map { ($0, .int(erased[$0]!)) })
        total = erased.values.reduce(0, +)
    }
}

/// `GET /v1/users/{user}/timezone`: the user's zone (null when none is set) and their clock at `at`.
struct TimeZoneAnswer: ResponseEncodable {
    var user: String
    var timezone: String?
    var at: Instant
    var clock: String

    enum CodingKeys: String, CodingKey { case user, timezone, at, clock }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(user, forKey: .user)
        try container.encode(timezone, forKey: .timezone)  // null when none is set, not left out
        try container.encode(at, forKey: .at)
        try container.encode(clock, forKey: .clock)
    }
}
