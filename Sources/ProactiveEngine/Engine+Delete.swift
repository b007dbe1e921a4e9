import Foundation
import ProactiveStore

// MARK: - Deleting donations as a caller asks

/// A deletion as a caller gave it (command-line flags, query parameters), before its rules are checked.
/// Dates are already read on the user's clock; `Engine.deletion(_:spelling:)` checks the rest.
public struct DeletionRequest: Sendable, Hashable {
    /// The criteria, named for `spelling`.
    public enum Field: String, Sendable, CaseIterable {
        case identifier, group, app, user, after, before, all
    }

    /// The app's donations with these identifiers (needs `app`).
    public var identifiers: [String]
    /// The app's donations in this group (needs `app`).
    public var group: String?
    public var app: String?
    public var user: String?
    /// Donations at or after this instant.
    public var after: Date?
    /// Donations strictly before this instant.
    public var before: Date?
    /// Everything the acting party may delete; combines with nothing else.
    public var all: Bool

    public init(identifiers: [String] = [], group: String? = nil, app: String? = nil, user: String? = nil,
                after: Date? = nil, before: Date? = nil, all: Bool = false) {
        (self.identifiers, self.group, self.app, self.user) = (identifiers, group, app, user)
        (self.after, self.before, self.all) = (after, before, all)
    }
}

/// What `Engine.delete(_:spelling:now:)` did.
public struct DeletionOutcome: Sendable, Hashable {
    /// How many donations were deleted.
    public var deleted: Int
    /// False when another connection kept the write-ahead log from being truncated, so old copies of the
    /// deleted rows stay in it until the next checkpoint (`compact` forces one).
    public var logTruncated: Bool
}

extension Engine {
    /// The deletion `request` describes, checked against the rules every caller shares: `identifiers`
    /// and `group` delete one app's donations (they need `app`, exclude each other and combine with
    /// nothing else); `all` combines with nothing; without `all` some criterion is required; no value
    /// is empty; `after` is earlier than `before`.
    /// - Parameter spelling: how the caller names a field in its messages (`--app` on a command
    ///   line, `app` in a query; `all` as `--all` or `all=true`).
    /// - Throws: `EngineError(.invalidRequest)` with the offending field as `spelling` names it.
    ///
    /// ```swift
    /// let deletion = try Engine.deletion(DeletionRequest(group: "san-diego", app: "com.example.weather"),
    ///                                    spelling: { "--" + $0.rawValue })   // .group("san-diego", app: ...)
    /// ```
    public static func deletion(_ request: DeletionRequest,
                                spelling: (DeletionRequest.Field) -> String) throws(EngineError) -> DonationDeletion {
        func refuse(_ message: String, _ field: DeletionRequest.Field?) -> EngineError {
            EngineError(.invalidRequest, message, field: field.map(spelling))
        }
        let values: [(DeletionRequest.Field, String?)] = [(.identifier, request.identifiers.first(where: \.isEmpty)), (.group, request.group),
                                                          (.app, request.app), (.user, request.user)]
        for (field, value) in values where value?.isEmpty == true {
            throw refuse("\(spelling(field)) needs a non-empty value", field)
        }
        if let after = request.after, let before = request.before, after >= before {
            throw refuse("\(spelling(.after)) must be earlier than \(spelling(.before)) (the span [after, before) is empty)", .after)
        }
        if !request.identifiers.isEmpty || request.group != nil {
            let field: DeletionRequest.Field = request.identifiers.isEmpty ? .group : .identifier
            guard let app = request.app else {
                throw refuse("\(spelling(.identifier)) and \(spelling(.group)) delete one app's donations: add \(spelling(.app)) "
                             + "with its bundle identifier", .app)
            }
            guard request.identifiers.isEmpty || request.group == nil else {
                throw refuse("give \(spelling(.identifier)) or \(spelling(.group)), not both", .group)
            }
            guard request.user == nil, request.after == nil, request.before == nil, !request.all else {
                throw refuse("\(spelling(.identifier)) and \(spelling(.group)) combine only with \(spelling(.app))", field)
            }
            return request.group.map { .group($0, app: app) } ?? .identifiers(request.identifiers, app: app)
        }
        let filter = DonationFilter(user: request.user, app: request.app, dates: DateSpan(start: request.after, end: request.before))
        if request.all {
            guard filter.matchesEverything else {
                throw refuse("\(spelling(.all)) deletes everything; drop it or drop the other criteria", .all)
            }
        } else if filter.matchesEverything {
            let criteria = DeletionRequest.Field.allCases.filter { $0 != .all }.map(spelling).joined(separator: ", ")
            throw refuse("say what to delete (\(criteria)), or \(spelling(.all)) to empty the store", nil)
        }
        return .matching(filter)
    }

    /// Checks `request` (`deletion(_:spelling:)`), deletes what it describes as the acting party, then
    /// finishes the erasure (`finishErasure`): saved states unlearn the deleted donations and no page of
    /// the store's files keeps their bytes.
    /// - Throws: `EngineError(.invalidRequest)` for a request the rules refuse (nothing deleted);
    ///   `StoreError(.accessDenied)` for another app's donations under an app's access; store failures.
    ///
    /// ```swift
    /// let outcome = try engine.delete(DeletionRequest(user: "u1"), spelling: { $0.rawValue })
    /// print(outcome.deleted)
    /// ```
    public func delete(_ request: DeletionRequest, spelling: (DeletionRequest.Field) -> String,
                       now: Date = Date()) throws -> DeletionOutcome {
        let deletion = try Self.deletion(request, spelling: spelling)
        let count = try AppScopedDonationStore(donations, access: access).delete(deletion)
        let truncated = count > 0 ? try finishErasure(now: now) : true
        return DeletionOutcome(deleted: count, logTruncated: truncated)
    }
}
