import Foundation
import ProactiveCore

// MARK: - The stores behind the Engine, as contracts

// Each protocol is what one part of a store holds, independent of the
// database under it. `SQLite…Store` (this module) and `Postgres…Store`
// (ProactivePostgres) conform with the same meaning: the same checks, the
// same uniqueness, the same transactions. Every method is one transaction
// and throws `StoreError` (`.database` when a constraint refuses a row,
// `.invalidRequest` for a request the store refuses before writing).
// `DonationStore` (Donations/DonationStore.swift) is the donations' contract.

/// The current intent definitions (what `migrate apply` and `definitions`
/// replace), by app then name.
///
/// ```swift
/// try definitions.replace(with: try plan.apply(to: definitions.all()), apps: ["com.example.coffee"])
/// ```
public protocol IntentDefinitionStore: Sendable {
    /// Every stored definition, by app then name.
    /// - Throws: `StoreError(.corrupt)` when a stored definition no longer parses.
    func all() throws(StoreError) -> [IntentDefinition]
    /// Replaces every stored definition of `apps` with the definitions of those
    /// apps in `definitions`, in one transaction; other apps are untouched.
    /// - Throws: `.invalidRequest` when the resulting set is inconsistent.
    func replace(with definitions: [IntentDefinition], apps: Set<String>) throws(StoreError)
}

/// Relevant shortcuts, widget timelines and feedback, per user.
///
/// ```swift
/// try declarations.replaceTimeline(StoredTimeline(user: "me", widget: "com.example.weather/forecast",
///                                                 app: "com.example.weather", timelineJSON: json))
/// ```
public protocol DeclarationStore: Sendable {
    /// Replaces the app's whole set; an empty JSON array deletes it.
    func replaceShortcutSet(_ set: StoredShortcutSet) throws(StoreError)
    /// The user's current sets, by app.
    func shortcutSets(user: String) throws(StoreError) -> [StoredShortcutSet]
    /// Replaces the widget's timeline; a timeline without entries deletes it.
    /// - Throws: `.invalidRequest` unless the widget key is the app's (`APP/KIND`).
    func replaceTimeline(_ timeline: StoredTimeline) throws(StoreError)
    /// The user's timelines, by widget.
    func timelines(user: String) throws(StoreError) -> [StoredTimeline]
    /// Appends feedback events in one transaction.
    /// - Throws: `.recordingPaused` while recording is paused.
    func appendFeedback(_ events: [StoredFeedback]) throws(StoreError)
    /// The user's feedback, oldest first (recording order among equal dates).
    func feedback(user: String) throws(StoreError) -> [StoredFeedback]
}

/// Focus schedules, manual Focus changes and apps' Focus filters (a
/// declaration, per-Focus values, app contexts). Values and contexts exist
/// only for an app with a declared filter and go away with it.
///
/// ```swift
/// try focus.recordChange(StoredFocusChange(date: now, focus: "personal"))
/// ```
public protocol FocusStore: Sendable {
    /// Stores a schedule and returns its id.
    @discardableResult
    func addSchedule(_ schedule: StoredFocusSchedule) throws(StoreError) -> Int64
    /// Every schedule, by id.
    func schedules() throws(StoreError) -> [StoredFocusSchedule]
    /// Removes a schedule; false when there was none with that id.
    func removeSchedule(id: Int64) throws(StoreError) -> Bool
    /// Records a manual Focus change (nil: Focus turned off).
    func recordChange(_ change: StoredFocusChange) throws(StoreError)
    /// Every manual change, oldest first.
    func changes() throws(StoreError) -> [StoredFocusChange]
    /// Declares (or re-declares) the app's filter, keeping the given values.
    func declareFilter(app: String, declaration: String, keeping values: [String: [String: ParameterValue]]) throws(StoreError)
    /// Removes the app's filter with its values and contexts; false when it had none.
    func removeFilter(app: String) throws(StoreError) -> Bool
    /// Replaces the app's values for one Focus.
    func replaceValues(app: String, focus: String, _ values: [String: ParameterValue]) throws(StoreError)
    /// Stores the app's context (badge count and the like) for one Focus.
    func setAppContext(_ context: StoredAppContext) throws(StoreError)
    /// The app's filter with its values and contexts, if it declared one.
    func filter(app: String) throws(StoreError) -> StoredFocusFilter?
    /// Every app's filter, by app.
    func allFilters() throws(StoreError) -> [StoredFocusFilter]
}

extension FocusStore {
    /// Declares the app's filter with no values.
    public func declareFilter(app: String, declaration: String) throws(StoreError) {
        try declareFilter(app: app, declaration: declaration, keeping: [:])
    }
}

/// How a physical erasure (`eraseTraces`, `compact`) went.
public struct StoreCompactionReport: Sendable, Hashable {
    /// Store file and write-ahead log sizes before and after (bytes; 0 where the store has no such file).
    public var fileBytesBefore: Int64 = 0
    public var fileBytesAfter: Int64 = 0
    public var walBytesBefore: Int64 = 0
    public var walBytesAfter: Int64 = 0
    /// False when another connection kept the log from being truncated
    /// (its old pages stay until the next checkpoint).
    public var logTruncated = true

    public init() {}
}

/// Pausing, retention, forgetting a user and physical erasure.
///
/// ```swift
/// try privacy.setRecordingPaused(true, at: now)   // donations are refused from now on
/// let erased = try privacy.forget(user: "u1")     // every row of the user, in one transaction
/// ```
public protocol PrivacyStore: Sendable {
    /// Whether donations are currently refused.
    func isRecordingPaused() throws(StoreError) -> Bool
    /// Pauses (refuses every donation from now on) or resumes recording; nothing stored is deleted.
    func setRecordingPaused(_ paused: Bool, at date: Date) throws(StoreError)
    /// When recording was paused, if it is.
    func pausedSince() throws(StoreError) -> Date?
    /// The store-wide retention window and the per-app ones.
    func retentionPolicy() throws(StoreError) -> RetentionPolicy
    /// Sets the store-wide window (`app` nil) or one app's.
    func setRetention(_ window: RetentionWindow, app: String?) throws(StoreError)
    /// Removes one app's window; false when it had none.
    func clearRetention(app: String) throws(StoreError) -> Bool
    /// Deletes what the policy no longer keeps at `now` in one transaction (as a deletion does:
    /// feedback scrubbed, held models told through the erasure journal). Traces stay until the
    /// caller runs `eraseTraces()` once held models have unlearned them (`Engine.applyRetention`).
    func applyRetention(now: Date, bulk: Bool) throws(StoreError) -> RetentionReport
    /// Erases everything the store holds about `user` in one transaction, then its traces.
    /// - Returns: rows erased per table (tables with none are omitted).
    func forget(user: String) throws(StoreError) -> [String: Int]
    /// `forget(user:)` when `app` is nil; else erases only that app's rows of `user` (donations,
    /// feedback, relevant shortcuts, widget timelines) in one transaction, then its traces. Saved
    /// models unlearn the erased donations through the erasure journal (`Engine.erase(user:)`).
    /// - Returns: rows erased per table (tables with none are omitted).
    func forget(user: String, app: String?) throws(StoreError) -> [String: Int]
    /// Makes deleted rows' bytes unreadable in the database's files (SQLite: checkpoint and
    /// truncate the write-ahead log). True when nothing could keep them.
    @discardableResult
    func eraseTraces() throws(StoreError) -> Bool
    /// Rebuilds the store without free space, so nothing deleted survives in its files.
    func compact() throws(StoreError) -> StoreCompactionReport
}

extension PrivacyStore {
    /// Sets the store-wide retention window.
    public func setRetention(_ window: RetentionWindow) throws(StoreError) { try setRetention(window, app: nil) }
    /// `applyRetention(now:bulk:)` in bulk.
    public func applyRetention(now: Date) throws(StoreError) -> RetentionReport { try applyRetention(now: now, bulk: true) }
}

/// How much of a saved state's heavy part `ModelStateStore.load` reads with its light part, in the same
/// transaction.
///
/// ```swift
/// let saved = try states.load(user: "me", name: "blend", heavy: .prefix { light in ModelArchive.heavyPrefixLength(of: light) })
/// ```
public enum HeavyPartRead: Sendable {
    /// None: the light part alone (`SavedModelState.hasHeavyPart` says whether there is more).
    case none
    /// All of it.
    case whole
    /// Its first `length(light)` bytes, the number the light part gives (`SavedModelState.heavyIsPrefix`
    /// when they are fewer than the stored part's); all of it when `length` gives nil.
    case prefix(@Sendable (_ light: [UInt8]) -> Int?)

    /// Whether any of the heavy part is read.
    package var readsHeavyPart: Bool {
        if case .none = self { return false }
        return true
    }

    /// How many bytes of the heavy part to read, given the light part: nil for all of it.
    package func prefixLength(light: [UInt8]) -> Int? {
        if case let .prefix(length) = self { return length(light) }
        return nil
    }
}

/// Saved live model states, the erasure journal and the reads a state needs
/// to catch up with the store. Saving is a compare-and-set on the state's
/// key: a state is written only when it is at least as far along (high-water
/// and erasure marks) as the stored one, or fitted for other inputs, so a
/// stale holder can never write back erased data or overwrite a newer state.
///
/// ```swift
/// if let saved = try states.load(user: "me", name: "blend", heavy: .none) { … }
/// ```
public protocol ModelStateStore: Sendable {
    /// The saved state, or nil; `heavy` says how much of a heavy part is read with the light one.
    func load(user: String, name: String, heavy: HeavyPartRead) throws(StoreError) -> SavedModelState?
    /// Saves `state` when the compare-and-set allows it; false when a newer one is stored.
    @discardableResult
    func save(_ state: SavedModelState) throws(StoreError) -> Bool
    /// `save(_:)` for several states in one transaction, each answered.
    func save(_ states: [SavedModelState]) throws(StoreError) -> [Bool]
    /// Every saved state's summary.
    func list() throws(StoreError) -> [ModelStateSummary]
    /// States whose high-water mark is behind the store, with the number of donations they miss.
    func behind() throws(StoreError) -> [(user: String, name: String, pending: Int)]
    /// Deletes the user's states (one name, or all); returns how many.
    @discardableResult
    func delete(user: String, name: String?) throws(StoreError) -> Int
    /// The user's donations (id order) with the store's marks, read in one snapshot.
    func snapshot(ofUser user: String) throws(StoreError) -> (donations: [StoredDonation], highWater: Int64, erasureMark: Int64)
    /// Donations added after `highWater` and journal entries after `erasureMark`, in one snapshot.
    func changes(ofUser user: String, after highWater: Int64, erasuresAfter erasureMark: Int64) throws(StoreError)
        -> (added: [StoredDonation], erased: [ErasedDonation], highWater: Int64, erasureMark: Int64)
    /// Users with journal entries a saved state has not yet unlearned.
    func usersWithPendingErasures() throws(StoreError) -> [String]
    /// The user's latest `limit` donations at or before `date`, oldest first.
    func recentDonations(ofUser user: String, atOrBefore date: Date, limit: Int) throws(StoreError) -> [Donation]
    /// The user's donations in `[start, end)`, in date order.
    func donations(ofUser user: String, from start: Date, to end: Date) throws(StoreError) -> [Donation]
}

extension ModelStateStore {
    /// The whole saved state (both parts), or nil.
    public func load(user: String, name: String) throws(StoreError) -> SavedModelState? {
        try load(user: user, name: name, heavy: .whole)
    }
    /// The saved state, or nil; without `withHeavyPart` only the light part is read.
    public func load(user: String, name: String, withHeavyPart: Bool) throws(StoreError) -> SavedModelState? {
        try load(user: user, name: name, heavy: withHeavyPart ? .whole : .none)
    }
    /// Deletes every state of the user.
    @discardableResult
    public func delete(user: String) throws(StoreError) -> Int { try delete(user: user, name: nil) }
}

/// One app's credential as a store keeps it: the SHA-256 of the credential, never the credential.
public struct AppCredentialRecord: Sendable, Equatable {
    /// The app's bundle identifier (ASCII letters, digits, '.', '-', '_'; 1 to 255 characters).
    public var app: String
    /// The SHA-256 of the credential's text, 64 lowercase hex digits.
    public var sha256: String
    /// When it was minted, to the second.
    public var created: Date

    public init(app: String, sha256: String, created: Date) {
        self.app = app
        self.sha256 = sha256
        self.created = created
    }
}

/// What changes whenever a store's credentials change (an owner created or replaced, an app added
/// or revoked, by any process): equal versions mean equal credentials.
public struct CredentialsVersion: Sendable, Hashable {
    public var values: [Int64]

    public init(_ values: [Int64]) { self.values = values }
}

/// The bearer credentials of `proactive serve`: the owner's (sees and changes everything) and one
/// per app (acts as `--as-app APP` does). A credential is `pk_` and 64 lowercase hex digits
/// (`ServiceCredential`). The store keeps hashes for apps, and for the owner what the owner reads
/// the credential from: a file store (`CredentialFiles`) the credential itself in a file readable
/// by its owner only, a database only its hash (the plaintext goes to a file the caller names:
/// `ensureOwnerCredential(file:)`). Every write is one transaction; `version()` is cheap, asked
/// before each request is checked.
///
/// ```swift
/// let credential = try backend.credentials.mintApp("com.example.coffee")   // shown once
/// try backend.credentials.revokeApp("com.example.coffee")
/// ```
public protocol CredentialRecordStore: Sendable {
    /// Where the store itself keeps the owner's credential in plain text (a file beside a store
    /// file); nil when it keeps only the hash.
    var ownerCredentialFile: String? { get }
    /// The SHA-256 of the owner's credential; nil when there is no owner credential yet.
    /// - Throws: `.io` for an owner file that is not a credential or that others may read.
    func ownerHash() throws(StoreError) -> String?
    /// Makes `credential` the owner's unless the store has one, atomically: of two callers at
    /// once, one stores its credential and the other gets false.
    /// - Returns: whether `credential` is now the owner's.
    /// - Throws: `.invalidRequest` when `credential` is not well-formed.
    func createOwner(_ credential: String, at date: Date) throws(StoreError) -> Bool
    /// Makes `credential` the owner's, replacing the current one (refused from then on).
    func replaceOwner(_ credential: String, at date: Date) throws(StoreError)
    /// Every app credential, oldest first (a replaced one counts from its replacement).
    func apps() throws(StoreError) -> [AppCredentialRecord]
    /// Stores the hash of `credential` for `app`.
    /// - Throws: `.invalidRequest` when `app` is not a bundle identifier, `credential` is not
    ///   well-formed, or the app has a credential and `replacing` is false.
    func addApp(_ app: String, credential: String, at date: Date, replacing: Bool) throws(StoreError)
    /// Revokes the app's credential; false when it had none.
    @discardableResult
    func revokeApp(_ app: String) throws(StoreError) -> Bool
    /// The credentials' version, changed by every write of any process.
    func version() throws(StoreError) -> CredentialsVersion
}

extension SQLiteIntentDefinitionStore: IntentDefinitionStore {}
extension SQLiteDeclarationStore: DeclarationStore {}
extension SQLiteFocusStore: FocusStore {}
extension SQLitePrivacyStore: PrivacyStore {}
extension SQLiteModelStateStore: ModelStateStore {}
