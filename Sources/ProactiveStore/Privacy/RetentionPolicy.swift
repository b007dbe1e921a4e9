import Foundation

// MARK: - Retention windows

/// How long a store keeps donations (and feedback) before erasing them.
public enum RetentionWindow: Sendable, Hashable, CustomStringConvertible {
    /// Keep what is younger than this many days (1...36500).
    case days(Int)
    /// Keep everything (historical logs, evaluation stores).
    case keepAll

    public static let allowedDays: ClosedRange<Int> = 1...36_500

    /// The window for a stored `days` column (NULL: keep everything).
    package init(storedDays: Int?) { self = storedDays.map(RetentionWindow.days) ?? .keepAll }

    package var storedDays: Int? {
        if case let .days(days) = self { return days }
        return nil
    }

    /// The earliest instant still kept at `now`; nil when everything is kept.
    public func cutoff(now: Date) -> Date? {
        guard case let .days(days) = self else { return nil }
        return now.addingTimeInterval(-Double(days) * 86_400)
    }

    public var description: String {
        switch self {
        case let .days(days): return "\(days) day\(days == 1 ? "" : "s")"
        case .keepAll: return "keep everything"
        }
    }

    /// - Throws: `.invalidRequest` for a day count outside `allowedDays`.
    package func validated() throws(StoreError) -> RetentionWindow {
        if case let .days(days) = self, !Self.allowedDays.contains(days) {
            throw StoreError(.invalidRequest, "a retention window is 1 to 36500 days, found \(days)")
        }
        return self
    }
}

// MARK: - Policy

/// The store's retention: a default window and per-app overrides.
///
/// ```swift
/// let policy = RetentionPolicy(defaultWindow: .days(28), byApp: ["com.example.health": .days(7)])
/// policy.window(for: "com.example.health")   // .days(7)
/// policy.window(for: "com.example.mail")     // .days(28)
/// ```
///
/// A donation is kept while `date >= now - window` (its app's window, or the
/// default). A new store keeps everything until the owner sets a window
/// (migration `v8_retention_opt_in`). Applied by
/// `SQLitePrivacyStore.applyRetention(now:)`, which the CLI runs before every
/// `import` and after every `donate` and in `proactive retention apply`; an
/// import leaves out what is already older than its window
/// (`ImportRetention`), so nothing it stores is erased at once.
public struct RetentionPolicy: Sendable, Hashable {
    public var defaultWindow: RetentionWindow
    /// Apps with their own window.
    public var byApp: [String: RetentionWindow]

    public init(defaultWindow: RetentionWindow = .keepAll, byApp: [String: RetentionWindow] = [:]) {
        self.defaultWindow = defaultWindow
        self.byApp = byApp
    }

    /// The window that applies to `app`'s donations.
    public func window(for app: String) -> RetentionWindow { byApp[app] ?? defaultWindow }

    /// Whether no window erases anything (the default and every app keep everything).
    public var keepsEverything: Bool { defaultWindow == .keepAll && byApp.values.allSatisfy { $0 == .keepAll } }
}

// MARK: - Reports

/// What applying retention erased.
public struct RetentionReport: Sendable, Hashable {
    /// Donation rows erased, per app.
    public var donationsByApp: [String: Int] = [:]
    /// Feedback events erased: older than the window, or naming targets only erased donations made.
    public var feedback = 0

    public init() {}

    public var donations: Int { donationsByApp.values.reduce(0, +) }
    public var isEmpty: Bool { donations == 0 && feedback == 0 }
}
