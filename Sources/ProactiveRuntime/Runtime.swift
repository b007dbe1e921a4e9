import Foundation
import Logging
import ProactiveCore
import ProactiveEngine
import ProactiveRanking
import ProactiveStore

// MARK: - The engine kept running

/// Live models kept in memory, writes batched, caches invalidated on change: what an app or a
/// service that embeds the engine and answers many questions needs beyond `Engine`'s one-shot calls.
///
/// It holds users' live models (`models`), what ranking reads besides them (`inputs`), the writer
/// that groups concurrent donation batches (`committer`) and when retention runs after donations
/// (`retention`). Every write goes through one of its methods, which brings the caches up to date
/// itself (`didWrite`, private: the one place that says what a write made stale). Writes by other processes on the same store (the
/// owner's CLI, another instance) are seen through the store's `StoreChangeWatch`: deletions before
/// the next answer, donations before the next answer for their users (`LiveModelCache`),
/// declarations and feedback within `Configuration.inputsLifetime`.
///
/// An app adds the `ProactiveRuntime` product beside `Proactive`:
///
/// ```swift
/// import Proactive
/// import ProactiveRuntime
///
/// let runtime = Runtime(engine: try Engine(path: "me.sqlite"))
/// _ = try await runtime.donate([Donation(user: "me", app: "com.example.coffee", intent: "OrderCoffeeIntent",
///                                        parameters: ["item": .string("latte")], date: Date())])
/// let session = try await runtime.session(user: "me")
/// let top = try session.suggest(at: Date(), k: 4)
/// _ = try await runtime.delete(.matching(DonationFilter(app: "com.example.coffee")))  // unlearned before the next answer
/// ```
///
/// Held models that learned something are saved by a `ModelKeeper` the app runs beside it (a plain
/// `run()` and `stop()`, no lifecycle library); without one they are caught up from the store when next read.
public final class Runtime: Sendable {
    public struct Configuration: Sendable {
        /// Bytes of live models kept in memory.
        public var memoryBudget = 512 << 20
        /// How long declarations, feedback and Focus filters read for a question are reused
        /// (the runtime's own writes of them take effect at once; another process's within this).
        public var inputsLifetime: Duration = .seconds(1)
        /// How often retention is applied after donations none of which is already past its window (`RetentionSweeper`).
        public var retentionInterval: Duration = .seconds(60)
        public init() {}
    }

    /// What a write changed: what the runtime's write methods drop, and what the observer is told.
    public struct Change: Sendable, Equatable {
        /// Users whose donations were added: folded into their held models in the background.
        public var donated: Set<String>
        /// Declarations, feedback, Focus filters or Focus state changed: ranking inputs are read again.
        public var inputs: Bool
        /// Every held model is stale (donations deleted, the Focus timeline or a user's clock changed):
        /// dropped, and read again from the store when next asked about.
        public var models: Bool

        public init(donated: Set<String> = [], inputs: Bool = false, models: Bool = false) {
            self.donated = donated
            self.inputs = inputs
            self.models = models
        }

        /// New donations of `users`.
        public static func donations(_ users: some Sequence<String>) -> Change { Change(donated: Set(users)) }
        /// Shortcuts, timelines, feedback or Focus filters.
        public static let declarations = Change(inputs: true)
        /// Donations deleted (delete, forget, retention), by this process or another.
        public static let erasure = Change(inputs: true, models: true)
        /// The Focus timeline (a Focus turned on or off) or a user's time zone: what models were read with.
        public static let clocks = Change(inputs: true, models: true)
    }

    /// The owner's engine: models are per user, not per app.
    public let engine: Engine
    public let configuration: Configuration
    public let models: LiveModelCache
    /// Users' declarations, feedback and the Focus filters, held for `Configuration.inputsLifetime`.
    public let inputs: RankingInputsCache
    /// When retention is applied after donations (at once for a donation past its window, else periodically).
    public let retention: RetentionSweeper
    /// Where batches of donations are written, several callers' in one transaction.
    public let committer: DonationCommitter
    /// Told of every change after the runtime's own caches: a holder of what it derived from them
    /// (the service's kept answers) drops what the change made stale.
    private let observer: @Sendable (Change) -> Void

    /// - Parameters:
    ///   - engine: the store's engine; its access is not used (the runtime acts as the owner).
    ///   - metrics: told of fits and of the models held.
    ///   - observer: called after every change (each write method's, and deletions by another process).
    public init(engine: Engine, configuration: Configuration = Configuration(), metrics: (any LiveModelMetrics)? = nil,
                logger: Logger = Logger(label: "proactive.runtime"), observer: @escaping @Sendable (Change) -> Void = { _ in }) {
        let owner = Engine(storage: engine.storage)
        self.engine = owner
        self.configuration = configuration
        self.observer = observer
        let inputs = RankingInputsCache(lifetime: configuration.inputsLifetime, changes: owner.changeWatch())
        self.inputs = inputs
        // Deletions by any process (the owner's CLI beside the runtime) are unlearned before the next answer:
        // the cache drops its models itself, then says so here.
        models = LiveModelCache(engine: owner, budget: configuration.memoryBudget, metrics: metrics, logger: logger,
                                erasures: owner.changeWatch(), onErasure: { Self.derivedChanged(.erasure, inputs: inputs, observer: observer) })
        retention = RetentionSweeper(interval: configuration.retentionInterval)
        committer = DonationCommitter(engine: owner)
    }

    // MARK: After a write

    /// What every write method ends with: drops what `change` made stale. Ranking inputs are dropped when
    /// declarations or models changed, the observer is told, donated users' held models fold their new
    /// donations in the background, and a change to models drops every held one (after saves in flight).
    private func didWrite(_ change: Change) async {
        Self.derivedChanged(change, inputs: inputs, observer: observer)
        if !change.donated.isEmpty { await models.donated(users: change.donated) }
        if change.models { await models.dropAll() }
    }

    /// The part of `didWrite` that does not touch held models (also what deletions by another process
    /// lead to, once the model cache dropped its models).
    private static func derivedChanged(_ change: Change, inputs: RankingInputsCache, observer: (Change) -> Void) {
        if change.inputs || change.models { inputs.invalidate() }
        observer(change)
    }

    // MARK: Writes

    /// Stores donations as `engine`'s acting party (one app, or the owner), several callers' batches in
    /// one transaction (`committer`), then applies retention when due.
    /// - Returns: per donation, how storing it went.
    /// - Throws: `StoreError(.accessDenied)` when a donation is for an app `engine` may not donate for
    ///   (nothing is stored); store failures.
    public func donate(_ donations: [Donation], as engine: Engine? = nil, now: Date = Date()) async throws -> [Engine.BatchOutcome] {
        let prepared = try (engine ?? self.engine).prepare(batch: donations)
        let results = try await committer.commit(prepared)
        return try await stored(prepared, results, now: now)
    }

    /// After `committer` stored `prepared` with `results`: the donated users' models fold the new donations,
    /// and retention is applied when due. For a caller that commits through `committer` itself.
    /// - Returns: per donation, how storing it went.
    public func stored(_ prepared: PreparedDonations, _ results: [Result<Bool, StoreError>], now: Date = Date()) async throws
        -> [Engine.BatchOutcome] {
        var outcomes: [Engine.BatchOutcome] = []
        outcomes.reserveCapacity(results.count)
        var users = Set<String>()
        var stored: [Donation] = []
        for (donation, result) in zip(prepared.donations, results) {
            switch result {
            case .success(true):
                users.insert(donation.user)
                stored.append(donation)
                outcomes.append(.stored(donation))
            case .success(false): outcomes.append(.duplicate)
            case let .failure(error): outcomes.append(.rejected(error.message))
            }
        }
        await didWrite(.donations(users))
        if !stored.isEmpty { try await applyRetention(now: now, after: stored) }
        return outcomes
    }

    /// Erases what the retention policy no longer keeps, when `retention` says it is due after `donations`;
    /// held models are dropped if anything went.
    public func applyRetention(now: Date, after donations: some Sequence<Donation>) async throws {
        guard retention.isDue(after: donations, policy: try engine.retentionPolicy(), now: now) else { return }
        let report = try engine.applyRetention(now: now, bulk: false)
        if !report.isEmpty { await didWrite(.erasure) }
    }

    /// Deletes donations as `engine`'s acting party (`Engine.delete`); held models unlearn them before the next answer.
    /// - Returns: how many donations were deleted.
    public func delete(_ deletion: DonationDeletion, as engine: Engine? = nil, now: Date = Date()) async throws -> Int {
        let deleted = try (engine ?? self.engine).delete(deletion, now: now)
        if deleted > 0 { await didWrite(.erasure) }
        return deleted
    }

    /// Stores one donation as `engine`'s acting party (`Engine.donate`: Focus filled from the timeline, refused
    /// while recording is paused), the donation's stated zone first adopted as its user's when the user has
    /// none (`adoptTimeZones`); then the user's held model folds it and retention is applied when due.
    /// - Returns: the donation as stored.
    /// - Throws: `StoreError(.accessDenied)` for another app's donation, or for a stated zone under an app's
    ///   access; `StoreError(.recordingPaused)`; store failures.
    ///
    /// ```swift
    /// let stored = try await runtime.donate(donation, timeZone: "America/Los_Angeles", now: Date())
    /// ```
    public func donate(_ donation: Donation, timeZone: String? = nil, as engine: Engine? = nil, now: Date = Date()) async throws
        -> Donation {
        if let timeZone { try await adoptTimeZones([donation.user: timeZone], as: engine) }
        let stored = try (engine ?? self.engine).donate(donation)
        await didWrite(.donations([stored.user]))
        try await applyRetention(now: now, after: [stored])
        return stored
    }

    /// Takes the zones donations stated as their users' when they have none (`Engine.adoptTimeZones`;
    /// the device owner's access only). A zone newly set drops the held models (they read the user's clock).
    /// - Returns: the users whose zone was set.
    /// - Throws: `StoreError(.accessDenied)` under an app's access; store failures.
    @discardableResult
    public func adoptTimeZones(_ zones: [String: String], as engine: Engine? = nil) async throws -> [String] {
        guard !zones.isEmpty else { return [] }
        let engine = engine ?? self.engine
        try engine.access.requireAdministrator(to: "set a user's time zone (the donation's \"timezone\")")
        let adopted = try engine.adoptTimeZones(zones)
        if !adopted.isEmpty { await didWrite(.clocks) }
        return adopted
    }

    /// Deletes what `request` names as `engine`'s acting party (`Engine.delete(_:spelling:now:)`); held models,
    /// inputs and kept answers unlearn the deleted donations before the next answer.
    /// - Returns: how many donations were deleted.
    public func delete(_ request: DeletionRequest, spelling: (DeletionRequest.Field) -> String, as engine: Engine? = nil,
                       now: Date = Date()) async throws -> Int {
        let deleted = try (engine ?? self.engine).delete(request, spelling: spelling, now: now).deleted
        if deleted > 0 { await didWrite(.erasure) }
        return deleted
    }

    /// Erases what `engine`'s acting party holds of `user` (`Engine.erase(user:app:)`); held models, inputs and
    /// kept answers are dropped before the next answer.
    /// - Returns: the rows erased per table.
    public func erase(user: String, app: String? = nil, as engine: Engine? = nil) async throws -> [String: Int] {
        let erased = try (engine ?? self.engine).erase(user: user, app: app)
        await didWrite(.erasure)
        return erased
    }

    /// Records feedback (`Engine.recordFeedback`); a tap stored as a donation is folded into its user's held model,
    /// and ranking inputs are read again.
    public func recordFeedback(_ events: [FeedbackEvent], user: String, utcOffset: Int = 0, as engine: Engine? = nil) async throws
        -> [Engine.RecordedFeedback] {
        let recorded = try (engine ?? self.engine).recordFeedback(events, user: user, utcOffset: utcOffset)
        let donated = recorded.compactMap { $0.donationStored ? $0.donation?.user : nil }
        await didWrite(Change(donated: Set(donated), inputs: true))
        return recorded
    }

    /// Turns a Focus on (`nil`: off) by hand at `date` (`Engine.recordFocusChange`); held models are dropped
    /// (their Focus timeline changed).
    public func recordFocusChange(_ focus: String?, at date: Date, as engine: Engine? = nil) async throws {
        _ = try (engine ?? self.engine).recordFocusChange(focus, at: date)
        await didWrite(.clocks)
    }

    /// Replaces an app's relevant shortcuts for `user` (`Engine.declareShortcuts`); ranking inputs are read again.
    public func declareShortcuts(_ set: RelevantShortcutSet, user: String, as engine: Engine? = nil) async throws {
        _ = try (engine ?? self.engine).declareShortcuts(set, user: user)
        await didWrite(.declarations)
    }

    /// Replaces the timelines of the widgets given (`Engine.replaceTimelines`); ranking inputs are read again.
    public func replaceTimelines(_ timelines: [WidgetTimeline], user: String, as engine: Engine? = nil) async throws {
        try (engine ?? self.engine).replaceTimelines(timelines, user: user)
        await didWrite(.declarations)
    }

    /// Declares (or replaces) an app's Focus filter (`Engine.declareFocusFilter`); ranking inputs are read again.
    public func declareFocusFilter(_ filter: FocusFilter, as engine: Engine? = nil) async throws -> Engine.DeclaredFilter {
        let declared = try (engine ?? self.engine).declareFocusFilter(filter)
        await didWrite(.declarations)
        return declared
    }

    /// Sets and removes an app's values in a Focus (`Engine.configureFocusFilter`); ranking inputs are read again.
    public func configureFocusFilter(app: String, focus: String, set texts: [(name: String, value: String)], unset: [String],
                                     as engine: Engine? = nil) async throws -> Engine.ConfiguredFilter {
        let configured = try (engine ?? self.engine).configureFocusFilter(app: app, focus: focus, set: texts, unset: unset)
        await didWrite(.declarations)
        return configured
    }

    // MARK: Questions

    /// What ranking needs for `user` now: the held model as folded so far (read from the store the first
    /// time) and the held inputs, with the versions they were read at (`LiveModelCache.question`,
    /// `RankingInputsCache.stampedInputs`): the same pair, the same answer to the same question.
    /// - Throws: `EngineError.noDonations` when the user has none.
    /// A model held and caught up is read without entering the cache's actor (`LiveModelCache.heldForQuestion`).
    public func question(user: String, as engine: Engine? = nil, now: Date = Date()) async throws
        -> (session: RankingSession, live: LiveModel, model: UInt64, inputs: UInt64) {
        let live: LiveModel
        let version: UInt64
        if let held = models.heldForQuestion(user: user) {
            (live, version) = held
        } else {
            (live, version) = try await models.question(user: user, now: now)
        }
        let engine = engine ?? self.engine
        let (inputs, stamp) = try self.inputs.stampedInputs(user: live.user, engine: engine)
        return (engine.rankingSession(live, inputs: inputs), live, version, stamp)
    }

    /// `question(user:)`'s ranking session alone.
    public func session(user: String, as engine: Engine? = nil, now: Date = Date()) async throws -> RankingSession {
        try await question(user: user, as: engine, now: now).session
    }
}
