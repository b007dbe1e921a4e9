import Foundation

// MARK: - Retention at import

/// The instant before which each app's donations are out of the retention
/// window, fixed for one import: such donations are not stored at all (an
/// import never stores what retention would erase at once), and the import
/// summary counts them (`ImportSummary.olderThanRetention`).
///
/// ```swift
/// let cutoffs = ImportRetention(policy: try privacy.retentionPolicy(), now: Date())
/// var importer = DonationImporter(store: store, options: ImportOptions(retention: cutoffs))
/// ```
///
/// A donation is kept while `date >= now - window`, the rule of
/// `SQLitePrivacyStore.applyRetention(now:)`.
public struct ImportRetention: Sendable, Hashable {
    public let policy: RetentionPolicy
    public let now: Date
    private let defaultCutoff: Int64?
    private let cutoffByApp: [String: Int64?]

    public init(policy: RetentionPolicy, now: Date) {
        self.policy = policy
        self.now = now
        func milliseconds(_ window: RetentionWindow) -> Int64? {
            window.cutoff(now: now).map(\.millisecondsSince1970)
        }
        defaultCutoff = milliseconds(policy.defaultWindow)
        cutoffByApp = policy.byApp.mapValues(milliseconds)
    }

    /// True when no window applies to any app (everything is kept).
    public var keepsEverything: Bool {
        defaultCutoff == nil && cutoffByApp.values.allSatisfy { $0 == nil }
    }

    /// Whether a donation of `app` at `dateMilliseconds` is already older than its window.
    func isExpired(app: String, dateMilliseconds: Int64) -> Bool {
        let cutoff = cutoffByApp[app] ?? defaultCutoff
        guard let cutoff else { return false }
        return dateMilliseconds < cutoff
    }
}
