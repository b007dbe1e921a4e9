import Foundation
import ProactiveCore

// MARK: - Who is acting

/// Who asks the store for something: the device owner (administrative mode,
/// sees and changes every app's data) or one app (sees and changes only its
/// own).
///
/// ```swift
/// let access = StoreAccess.app("com.example.mail")
/// try access.require(app: donation.app, to: "donate")      // throws for another app's donation
/// let filter = try access.scope(DonationFilter(user: "u1"), to: "export")   // app = com.example.mail
/// ```
///
/// The app-scoped stores (`AppScopedDonationStore`, `AppScopedDeclarationStore`,
/// `AppScopedFocusStore`) apply it to every operation; the owner acts as
/// `.administrator`, an app as `.app(A)`.
public enum StoreAccess: Sendable, Hashable, CustomStringConvertible {
    case administrator
    case app(String)

    /// The acting app, nil in administrative mode.
    public var app: String? {
        if case let .app(app) = self { return app }
        return nil
    }

    public var description: String { app.map { "app \($0)" } ?? "the device owner" }

    // MARK: Checks

    /// Allows the operation when the acting app is `app` (or in administrative mode).
    /// - Throws: `.accessDenied` naming both apps and the operation.
    public func require(app owner: String, to operation: String) throws(StoreError) {
        guard let app, !IdentifierRules.same(app, owner) else { return }
        throw StoreError(.accessDenied, "\(app) may not \(operation) \(owner)'s data: an app sees and changes only its own")
    }

    /// Whether the acting party may see `owner`'s data: administrative mode,
    /// or the acting app itself (exact comparison, not Unicode equivalence).
    public func sees(app owner: String) -> Bool {
        guard let app else { return true }
        return IdentifierRules.same(app, owner)
    }

    /// Allows only administrative mode.
    /// - Throws: `.accessDenied` for an app.
    public func requireAdministrator(to operation: String) throws(StoreError) {
        guard let app else { return }
        throw StoreError(.accessDenied, "\(app) may not \(operation): only the device owner may (administrative mode)")
    }

    /// The filter restricted to the acting app: an unset `app` becomes the
    /// acting app; another app is refused.
    public func scope(_ filter: DonationFilter, to operation: String) throws(StoreError) -> DonationFilter {
        guard let app else { return filter }
        if let other = filter.app { try require(app: other, to: operation) }
        var scoped = filter
        scoped.app = app
        return scoped
    }
}
