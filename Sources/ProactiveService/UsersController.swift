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
