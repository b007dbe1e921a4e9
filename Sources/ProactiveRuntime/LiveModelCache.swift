import Foundation
import Logging
import Synchronization
import ProactiveEngine
import ProactiveModels
import ProactiveStore

// MARK: - Live models in memory

/// Users' live models held in memory within a byte budget.
///
/// A model is read from the store the first time a user is asked about
/// (`Engine.liveModel`: the saved state caught up, or a fit when there is
/// none), then kept: what the store changed since is folded in
/// (`Engine.refresh`) in the background as donations arrive. A question
/// (`live(user:waiting: false)`) answers from the model as folded so far;
/// `live(user:)` waits for the fold. Reads, folds and saves run off this
/// actor, so one user's never holds up another's. The least recently used
/// models leave when the budget is exceeded, saved first; `flush` (periodic)
/// and `saveAll` (shutdown) save the ones that learned something since their
/// last save. Deleting donations drops every held model (`dropAll`): the
/// next read unlearns from the store. Deletions made by another process (the
/// owner's CLI beside the service) are seen through `erasures` before the next
/// question, fold or save, and drop every held model the same way; a save of a
/// model that still holds deleted donations is refused by the store
/// (`Engine.save`) and drops that model, so no held copy can write deleted
/// values back. Donations stored by another process are seen the same way
/// (`StoreChangeWatch.donationMark`, then `donors` for the new ones only): the
/// next question about such a user waits for them to be folded in, unless a
/// fold of this cache's own donations for the user is already pending (they are
/// then learned with it, as its own are). When nothing was stored, a question
/// costs one look at the store's marks.
///
/// A question about a model held and caught up is answered without entering the
/// actor (`heldForQuestion`): the actor offers each model it answered a question
/// from (`AnswerableModels`), and any change to what it holds, folds or noticed
/// in the store withdraws every offer, so such an answer is the one
/// `question(user:)` would give.
public actor LiveModelCache {
    struct Entry {
        var live: LiveModel
        var bytes: Int
        var savedHighWater: Int64
        /// Changes whenever `live` does (`LiveModelCache.question`).
        var version: UInt64
    }

    /// The engine models are read and saved with (the owner's: models are per user, not per app).
    public let engine: Engine
    public let budget: Int
    let metrics: (any LiveModelMetrics)?
    let logger: Logger
    private var entries: [String: Entry] = [:] { didSet { answerable.withdrawAll() } }
    /// Held models offered to questions asked off the actor, and every held model's last use.
    private let answerable = AnswerableModels()
    /// Reads in flight, and the `generation` each started in.
    private struct Loading {
        var task: Task<(live: LiveModel, bytes: Int, refitted: Bool), any Error>
        var generation: Int
    }
    private var loading: [String: Loading] = [:]
    /// Counts `dropAll`s: a read that started before one is answered but not held.
    private var generation = 0
    /// Folds and saves in flight, and the background folder of donations.
    private var refreshing: [String: Task<LiveModel, any Error>] = [:] { didSet { answerable.withdrawAll() } }
    private var saving: [String: Task<LiveModel?, Never>] = [:]
    private var drainer: Task<Void, Never>?
    /// The last version given to a held model (`Entry.version`); versions are never reused.
    private var lastVersion: UInt64 = 0
    /// Users whose donations changed since their model was last refreshed.
    private var stale: Set<String> = [] { didSet { answerable.withdrawAll() } }
    public private(set) var bytesInMemory = 0
    /// Set on shutdown: the background fold stops taking users.
    private var stopping = false
    /// Set on shutdown: when folds (also one in flight) stop learning donations (see `Engine.refresh(_:now:stop:)`).
    private let foldDeadline = FoldDeadline()
    /// Where folds and periodic saves run: below the requests' priority.
    private static let background = LowPriorityThread()
    /// Tells when any process deleted donations (nil: an in-memory store, no other process).
    let erasures: (any StoreChangeWatch)?
    /// The erasure mark the held models are known to be consistent with.
    private var erasureMark: Int64 { didSet { answerable.withdrawAll() } }
    /// The donations' high-water mark up to which stored donations were noticed (`noticeDonations`).
    private var donationMark: Int64 { didSet { answerable.withdrawAll() } }
    /// Held users with donations stored elsewhere that no fold has taken yet: their next question waits for one.
    private var behind: Set<String> = [] { didSet { answerable.withdrawAll() } }
    /// Called (on this actor) after deletions made elsewhere dropped the held models: what else
    /// the holder derived from the store (declarations, answers) is stale too.
    private let onErasure: @Sendable () -> Void

    /// - Parameters:
    ///   - erasures: how deletions by other processes are seen; nil (an in-memory store) sees only `dropAll`.
    ///   - onErasure: called when deletions made elsewhere dropped the held models.
    public init(engine: Engine, budget: Int, metrics: (any LiveModelMetrics)? = nil, logger: Logger = Logger(label: "proactive.models"),
                erasures: (any StoreChangeWatch)? = nil, onErasure: @escaping @Sendable () -> Void = {}) {
        self.engine = engine
        self.budget = budget
        self.metrics = metrics
        self.logger = logger
        self.erasures = erasures
        self.onErasure = onErasure
        let marks = erasures?.marks()
        erasureMark = marks?.erasures ?? 0
        donationMark = marks?.donations ?? 0
    }

    /// What any process changed since the last look: deletions drop every held model
    /// (`forgetDeletedElsewhere`), donations are noticed (`noticeDonations`). One look at the store's
    /// marks when nothing changed. Called before every question, fold and save.
    private func lookAtStore() async {
        guard let watch = erasures else { return }
        let marks = watch.marks()
        if await forgetDeletedElsewhere(mark: marks.erasures) { return }  // every model is read again: nothing to fold
        if let mark = marks.donations { noticeDonations(through: mark, watch: watch) }
    }

    /// Notes the users held (or being read) that have donations with an id above `donationMark` and at most
    /// `mark`: each is folded in the background, and its next question waits for the fold unless a fold of
    /// its own donations (`donated`) is already pending or under way (which learns these with them).
    private func noticeDonations(through mark: Int64, watch: any StoreChangeWatch) {
        guard mark > donationMark else { return }
        let donors = watch.donors(after: donationMark, through: mark)
        donationMark = mark
        let users = donors.map { $0.filter { entries[$0] != nil || loading[$0] != nil } } ?? Set(entries.keys).union(loading.keys)
        for user in users where entries[user] != nil && !stale.contains(user) && refreshing[user] == nil { behind.insert(user) }
        donated(users: users)
    }

    /// Drops every held model when donations were deleted since the last look, by any process:
    /// the next read of each unlearns them from the store. Called before every question, fold and save.
    /// - Returns: whether it dropped them.
    @discardableResult
    public func forgetDeletedElsewhere() async -> Bool {
        guard let erasures else { return false }
        return await forgetDeletedElsewhere(mark: erasures.mark())
    }

    /// `forgetDeletedElsewhere()` with the erasure mark already read.
    private func forgetDeletedElsewhere(mark: Int64) async -> Bool {
        guard mark > erasureMark else { return false }
        if mark != .max { erasureMark = mark }  // .max: SQLite could not tell; drop now and look again next time
        logger.info("donations were deleted in the store; held models dropped", metadata: ["models": "\(entries.count)"])
        await dropAll()
        onErasure()
        return true
    }

    /// The user's live model, caught up with the store.
    ///
    /// A user not held yet is read (or fitted, the first time) in a task of its
    /// own, off this actor: other users' questions go on meanwhile, and
    /// concurrent questions about the same user wait for the one read. A held
    /// model with donations pending is caught up the same way (`fold`).
    /// - Throws: `EngineError.noDonations` when the user has none.
    /// - Parameter waiting: false answers a held model as folded so far, without waiting for
    ///   donations still being folded in (they are, in the background): what questions use, so
    ///   that a flood of donations does not hold them up.
    public func live(user: String, now: Date = Date(), waiting: Bool = true) async throws -> LiveModel {
        await lookAtStore()
        // Donations another process stored for the user are folded in before answering, at the question's priority.
        let catchingUp = behind.remove(user) != nil
        if !waiting, !catchingUp, let held = touch(user) { return held.live }
        if entries.index(forKey: user) != nil {
            if stale.contains(user) || refreshing[user] != nil { try await fold(user, now: now, background: !catchingUp) }
            guard var entry = entries[user] else { return try await live(user: user, now: now) }  // dropped meanwhile: read again
            let answer = entry.live
            answerable.use(user)
            entry.live.acknowledgeNotes()  // told once, by this answer
            entries[user] = entry
            return answer
        }
        if let pending = loading[user] { return try await pending.task.value.live }
        let engine = engine
        let pending = Loading(task: Task.detached {
            var live = try engine.liveModel(user: user, now: now)
            let refitted = live.refitted
            live.acknowledgeLoad()  // held from now on: `refitted` says what a later refresh did
            // Sized as a save writes it (both parts), as `installSaved` sizes it after each save.
            let parts = live.model.serializedParts()
            return (live, parts.light.count + parts.heavy.count, refitted)
        }, generation: generation)
        loading[user] = pending
        defer { if loading[user]?.generation == pending.generation { loading[user] = nil } }
        let (live, bytes, refitted) = try await pending.task.value
        if refitted { metrics?.refitted() }
        // Deletions dropped every model while this one was read: it may hold deleted donations.
        guard pending.generation == generation, entries[user] == nil else { return live }
        var held = live
        held.acknowledgeNotes()  // the notes are this answer's; later answers from the held model do not repeat them
        entries[user] = Entry(live: held, bytes: bytes, savedHighWater: live.key.highWater, version: newVersion())
        answerable.use(user)
        bytesInMemory += bytes
        await evict(keeping: user, now: now)
        publish()
        return live
    }

    /// `live(user:waiting: false)` (what questions use) with the held model's version: a number that
    /// changes whenever the held model does (read, folded, saved) and is never reused, so a holder may keep
    /// what it computed from one version for as long as the version stays. A model not held yet is read
    /// and answered with a version of its own that nothing else carries.
    public func question(user: String, now: Date = Date()) async throws -> (live: LiveModel, version: UInt64) {
        await lookAtStore()
        if behind.contains(user) {  // donations stored elsewhere: folded first
            let live = try await live(user: user, now: now, waiting: false)
            return (live, entries[user]?.version ?? newVersion())
        }
        if let held = touch(user) {
            offer(user)
            return held
        }
        let version = newVersion()
        return (try await live(user: user, now: now, waiting: false), version)
    }

    /// `question(user:)`'s answer for a held model, given without entering the actor when the actor has
    /// nothing to do first: the model was offered (`offer`: caught up, no fold pending or under way, its
    /// notes told) and the store's marks are still those it was offered at (no donation stored and none
    /// deleted since, by any process). Marks the model used. nil: ask `question(user:)`.
    ///
    /// ```swift
    /// let (live, version) = try await cache.heldForQuestion(user: "u1") ?? cache.question(user: "u1")
    /// ```
    public nonisolated func heldForQuestion(user: String) -> (live: LiveModel, version: UInt64)? {
        answerable.take(user, marks: erasures?.marks())
    }

    /// Offers the held model of `user` to questions asked off the actor, when such a question would be
    /// answered from it as it is now: held, not stale, no fold under way, nothing stored elsewhere pending.
    private func offer(_ user: String) {
        guard !stale.contains(user), !behind.contains(user), refreshing[user] == nil, let entry = entries[user] else { return }
        answerable.offer(user, live: entry.live, version: entry.version,
                         marks: erasures == nil ? nil : (erasureMark, donationMark))
    }

    /// A held model for a question (as folded so far; the fold of pending donations started), marked used.
    /// Looked up by index and changed in place: no copy of the entry (a model's many buffers retained and released).
    private func touch(_ user: String) -> (live: LiveModel, version: UInt64)? {
        guard let index = entries.index(forKey: user) else { return nil }
        if stale.contains(user), drainer == nil { drainer = Task(priority: .background) { await StoreFreshness.$since.withValue(nil) { await self.drain() } } }
        answerable.use(user)
        let entry = entries.values[index]  // one copy of the entry: the profile showed one per member read through the subscript
        if !entry.live.notes.isEmpty { entries.values[index].live.acknowledgeNotes() }  // told once, by this answer
        return (entry.live, entry.version)
    }

    private func newVersion() -> UInt64 {
        lastVersion += 1
        return lastVersion
    }

    /// Notes that the users' donations changed, and folds them into the held
    /// models in the background (one user at a time, off this actor); a
    /// question about a user not folded yet folds it first.
    public func donated(users: some Sequence<String>) {
        for user in users where entries.index(forKey: user) != nil || loading.index(forKey: user) != nil { stale.insert(user) }
        if drainer == nil, !stale.isEmpty { drainer = Task(priority: .background) { await StoreFreshness.$since.withValue(nil) { await self.drain() } } }
    }

    /// Drops every held model without saving it (after a deletion), once the saves in flight are written
    /// (so the caller's settling of deletions comes after them).
    public func dropAll() async {
        // Every deletion committed so far is covered by this drop (the caller's own included).
        if let mark = erasures?.mark(), mark != .max { erasureMark = max(erasureMark, mark) }
        entries.removeAll()
        answerable.forgetAll()
        stale.removeAll()
        behind.removeAll()
        loading.removeAll()
        refreshing.removeAll()
        generation += 1
        bytesInMemory = 0
        publish()
        for task in Array(saving.values) { _ = await task.value }
    }

    /// Folds pending donations into the held models and saves those that learned something;
    /// stops early when `stop` says so (shutdown: what is left is saved by `saveForShutdown`).
    public func flush(now: Date = Date(), stop: @Sendable () -> Bool = { false }) async {
        await lookAtStore()
        for task in Array(refreshing.values) { _ = try? await task.value }
        for user in Array(stale) where entries[user] != nil {
            if stop() || stopping { return }
            try? await fold(user, now: now)
        }
        if stop() || stopping { return }
        await saveAll(now: now)
    }

    /// Saves every held model that learned something since its last save.
    /// Models that grew past the budget meanwhile are then evicted, least recently used first.
    public func saveAll(now: Date = Date()) async {
        await lookAtStore()
        _ = await saveDirty(now: now, until: nil, background: true)
        await evict(keeping: nil, now: now)
        publish()
    }

    /// Shutting down: stops the folds (`stopFolding`: one under way ends at its next check, keeping what it
    /// learned), folds the donations still pending for the held models for at most `folding` (one model after
    /// the other; a fold under way at that deadline stops at its next check, keeping what it learned), then
    /// saves the models that learned something since their last save, those with the most unsaved donations
    /// first, `workers` transactions at once, until `budget` (counted from the call, folding included) has
    /// passed. Donations not learned by then stay in the store, and the next read of the model catches its
    /// saved state up with them (as after a restart without this save), so a flood of donations just before
    /// shutdown costs it at most `folding`, and a slow disk cannot hold it past a service manager's timeout.
    /// - Parameters:
    ///   - budget: the whole shutdown's time; no save transaction starts after it.
    ///   - folding: the part of `budget` the pending donations may be folded in (zero: none is folded).
    ///   - workers: transactions written at once (each encodes its models off this actor; the store
    ///     commits them one after the other).
    /// - Returns: the models saved, and those left behind the store (not saved by the deadline, or with
    ///   donations not learned): caught up from the store when next read.
    ///
    /// ```swift
    /// let (saved, left) = await cache.saveForShutdown(budget: .seconds(20), folding: .seconds(1), workers: 2)
    /// ```
    public func saveForShutdown(budget: Duration, folding: Duration = .zero, workers: Int = 2,
                                now: Date = Date()) async -> (saved: Int, left: Int) {
        stopping = true
        stopFolding()
        let started = ContinuousClock.now
        let deadline = started + budget
        await lookAtStore()
        for task in Array(refreshing.values) { _ = try? await task.value }
        for task in Array(saving.values) { _ = await task.value }
        let waited = ContinuousClock.now - started
        // The donations still pending, folded until `folding` has passed (a fold then under way stops at its next check).
        let foldsEnd = started + min(max(folding, .zero), max(budget, .zero))
        foldDeadline.set(foldsEnd)
        var folded = 0
        for user in stale.filter({ entries[$0] != nil }).sorted() {
            if ContinuousClock.now >= foldsEnd { break }
            if (try? await fold(user, now: now, background: false)) != nil { folded += 1 }
        }
        stopFolding()
        logger.info("shutdown: the folds and saves under way ended; pending donations folded", metadata: [
            "waited": "\(waited.logText)", "folded_models": "\(folded)", "folding": "\((ContinuousClock.now - started - waited).logText)",
        ])
        let (saved, left) = await saveDirty(now: now, until: deadline, background: false, workers: workers)
        let unsaved = Set(left)
        return (saved, unsaved.union(stale.filter { entries[$0] != nil }).count)
    }

    /// Makes every fold stop learning donations, one under way at its next check (`Engine.refresh`'s
    /// `stop`): what a shutdown calls first, so that nothing it waits for goes on folding.
    public nonisolated func stopFolding() {
        foldDeadline.set(.now)
    }

    /// How many models one save transaction writes at most at shutdown (their bytes are held until it
    /// commits); periodic saves write one a transaction, so donations wait behind one model's bytes at most.
    static let savesPerTransaction = 16

    /// Saves the dirty held models, most unsaved donations first, off this actor (`background`: one a
    /// transaction on the low-priority thread; else in transactions of up to `savesPerTransaction`, the
    /// models shared among `workers` transactions written at once); starts no new one after `deadline`.
    /// - Returns: how many were saved, and the users whose models were not.
    private func saveDirty(now: Date, until deadline: ContinuousClock.Instant?, background: Bool, workers: Int = 1)
        async -> (saved: Int, left: [String]) {
        let dirty = entries.filter { saving[$0.key] == nil && Self.needsSave($0.value) }
            .sorted { ($0.value.live.folded, $0.key) > ($1.value.live.folded, $1.key) }.map(\.key)
        let workers = background ? 1 : max(1, workers)
        let step = background ? 1 : max(1, min(Self.savesPerTransaction, (dirty.count + workers - 1) / workers))
        var written: Set<String> = []
        var start = 0
        while start < dirty.count {
            if let deadline, ContinuousClock.now >= deadline { break }
            // Up to `workers` transactions at once, each with its own models.
            var wave: [(users: [String], task: Task<[(live: LiveModel, written: Bool)]?, Never>)] = []
            while wave.count < workers, start < dirty.count {
                let chunk = dirty[start..<min(start + step, dirty.count)].filter { entries[$0] != nil && saving[$0] == nil }
                start += step
                let held = chunk.compactMap { entries[$0]?.live }
                if held.isEmpty { continue }
                let engine = engine
                let task = Task.detached { () -> [(live: LiveModel, written: Bool)]? in
                    let write: @Sendable () throws -> [(live: LiveModel, written: Bool)] = {
                        var lives = held
                        let written = try engine.save(&lives, now: now)
                        return Array(zip(lives, written))
                    }
                    return try? await (background ? Self.background.run(write) : write())
                }
                let each = Task<LiveModel?, Never> {  // what `dropAll` and `save` wait for
                    _ = await task.value
                    return nil
                }
                for user in chunk { saving[user] = each }
                wave.append((chunk, task))
            }
            let started = generation
            for (users, task) in wave {
                let result = await task.value
                for user in users { saving[user] = nil }
                guard let result else {
                    logger.warning("could not save held models", metadata: ["models": "\(users.count)"])
                    continue
                }
                guard started == generation else { continue }
                for (live, saved) in result {
                    if saved {
                        written.insert(live.user)
                        installSaved(live)
                    } else {
                        refused(live.user)
                    }
                }
            }
        }
        return (written.count, dirty.filter { !written.contains($0) })
    }

    /// Whether a held model learned something since its last save.
    private static func needsSave(_ entry: Entry) -> Bool {
        entry.live.key.highWater != entry.savedHighWater || entry.live.folded > 0 || entry.live.unlearned > 0
    }

    /// Records that `saved` was written: its counters start anew unless a fold came meanwhile (saved next time).
    /// Its size is taken anew from the bytes written: a held model's rows grow as it learns, and the budget
    /// counts what it holds now, not what it held when read.
    private func installSaved(_ saved: LiveModel) {
        guard var current = entries[saved.user] else { return }
        if let bytes = saved.savedBytes, bytes != current.bytes {
            bytesInMemory += bytes - current.bytes
            current.bytes = bytes
        }
        if current.live.key.highWater == saved.key.highWater {
            current.live = saved
            current.version = newVersion()
        }
        current.savedHighWater = saved.key.highWater
        entries[saved.user] = current
    }

    /// How many models are held.
    public var count: Int { entries.count }

    // MARK: Retraining

    /// What `retrain` did: the users trained, those of them whose held model it replaced, and the users
    /// that could not be trained (each failure naming its user; they keep their held models).
    public struct Retraining: Sendable {
        public var trained = 0
        public var replaced = 0
        public var failures: [String] = []
        /// Whether it ended before holding anything: stopped (`stop`), or donations were deleted meanwhile.
        public var abandoned = false
    }

    /// Trains every user of the store afresh as `proactive train` does (every user walked, the population
    /// prior learned from all of them, each user fitted toward it and saved), one user after the other on a
    /// thread of its own at the lowest scheduling priority, then holds each trained model in place of the
    /// user's held one and folds in the donations stored since its walk. A model held for a long time learns
    /// every donation online but keeps the weights, guard and population prior of its last fit; after this
    /// it answers as a freshly trained one would, and then learns online from there.
    ///
    /// Nothing is held when donations were deleted meanwhile, by any process (the trained models may hold
    /// them; the store refuses their saves as well), or when `stop` says so (it is asked between users:
    /// shutdown does not wait for a whole training). Only the trained models of the users held when it
    /// starts are kept in memory until then; the others are not held by it: their next read finds the
    /// trained state the store saved.
    /// - Parameters:
    ///   - choice: the model trained (the one the held models are read with).
    ///   - stop: asked between users; true abandons the training.
    /// - Returns: what it did (`Retraining`).
    ///
    /// ```swift
    /// let done = await runtime.models.retrain()
    /// print("retrained \(done.trained) users; \(done.replaced) held models replaced")
    /// ```
    public func retrain(_ choice: ModelChoice = ModelChoice(), now: Date = Date(),
                        stop: @escaping @Sendable () -> Bool = { false }) async -> Retraining {
        await lookAtStore()
        let started = generation
        let erasuresBefore = erasures?.mark()
        let engine = engine
        let held = Set(entries.keys)  // the trained models kept in memory: the others are in the store only
        var result = Retraining()
        let trained: [LiveModel]
        do {
            let run = try await Self.retraining.run {
                engine.train(users: try engine.users(), choice, now: now, stop: stop, keeping: held.contains)
            }
            (trained, result.trained, result.failures) = (run.kept, run.fitted, run.failures)
            if run.stopped {
                result.abandoned = true
                return result
            }
        } catch {
            result.failures.append("the users could not be read: \(error)")
            result.abandoned = true
            return result
        }
        await lookAtStore()
        // Deleted meanwhile (here: every held model was dropped; elsewhere: the mark moved), or shutting down.
        guard !stop(), !stopping, generation == started, erasures?.mark() == erasuresBefore, erasuresBefore != .max else {
            result.abandoned = true
            return result
        }
        for var live in trained {
            let user = live.user
            if let pending = refreshing[user] { _ = try? await pending.value }
            if let pending = saving[user] { _ = await pending.value }
            guard generation == started, refreshing[user] == nil, saving[user] == nil, var entry = entries[user] else { continue }
            live.acknowledgeLoad()
            live.acknowledgeNotes()
            if let bytes = live.savedBytes, bytes != entry.bytes {
                bytesInMemory += bytes - entry.bytes
                entry.bytes = bytes
            }
            entry.live = live
            entry.savedHighWater = live.key.highWater
            entry.version = newVersion()
            entries[user] = entry
            stale.insert(user)  // the donations stored since its walk
            result.replaced += 1
        }
        if drainer == nil, !stale.isEmpty { drainer = Task(priority: .background) { await StoreFreshness.$since.withValue(nil) { await self.drain() } } }
        publish()
        return result
    }

    /// Where `retrain` trains: a thread of its own, so that folds (`background`) do not wait for a whole training.
    private static let retraining = LowPriorityThread()

    // MARK: Pieces

    /// Catches the held model of `user` up with the store in a task off this actor (one at a time per user):
    /// waits for a fold in flight, then folds again if donations came since it started. A fold's task
    /// installs its result before it ends, so whoever awaits it then reads the caught-up model.
    private func fold(_ user: String, now: Date, priority: TaskPriority? = nil, background: Bool = true) async throws {
        if let pending = refreshing[user] { _ = try? await pending.value }
        guard stale.remove(user) != nil, let held = entries[user]?.live else { return }
        let engine = engine
        let started = generation
        let deadline = foldDeadline
        let task = Task.detached(priority: priority) { () throws -> LiveModel in
            let live: LiveModel
            let complete: Bool
            do {
                let refresh: @Sendable () throws -> (LiveModel, Bool) = {
                    var live = held
                    let complete = try engine.refresh(&live, now: now, stop: { deadline.passed })
                    return (live, complete)
                }
                (live, complete) = try await background ? Self.background.run(refresh) : refresh()
            } catch {
                await self.foldFailed(user, generation: started, error: error)
                throw error
            }
            await self.install(user, live, generation: started, complete: complete)
            return live
        }
        refreshing[user] = task
        _ = try await task.value
    }

    /// Holds a fold's result; a fold stopped with donations left (`complete` false) leaves the user stale.
    private func install(_ user: String, _ live: LiveModel, generation started: Int, complete: Bool) {
        guard started == generation else { return }  // dropped meanwhile (a deletion)
        refreshing[user] = nil
        if !complete { stale.insert(user) }
        if live.refitted { metrics?.refitted() }  // many deletions: refitted
        guard var entry = entries[user] else { return }
        entry.live = live
        entry.version = newVersion()
        entries[user] = entry
    }

    private func foldFailed(_ user: String, generation started: Int, error: any Error) {
        guard started == generation else { return }
        refreshing[user] = nil
        logger.warning("could not refresh a held model; dropped", metadata: ["error": "\(error)"])
        drop(user)
    }

    /// Folds the users marked stale, one after the other, until none is left that is held and not being folded.
    private func drain() async {
        while !stopping, let user = stale.first(where: { entries[$0] != nil && refreshing[$0] == nil }) {
            try? await fold(user, now: Date(), priority: .background)
        }
        drainer = nil
    }

    /// Saves a held model that learned something since its last save, in a task off this actor.
    private func save(_ user: String, now: Date) async {
        guard saving[user] == nil, let entry = entries[user], Self.needsSave(entry) else { return }
        let engine = engine
        let started = generation
        let held = entry.live
        let task = Task.detached { () -> (live: LiveModel, written: Bool)? in
            var live = held
            do {
                let written = try engine.save(&live, now: now)
                return (live, written)
            } catch { return nil }
        }
        saving[user] = Task { await task.value?.live }
        let saved = await task.value
        saving[user] = nil
        guard let saved else {
            logger.warning("could not save a held model", metadata: ["user_models": "\(entries.count)"])
            return
        }
        guard started == generation else { return }
        if saved.written { installSaved(saved.live) } else { refused(user) }
    }

    /// The store refused to save the user's held model: donations it holds were deleted (by another
    /// process) or a state further along was saved. Dropped: its next read catches up from the store.
    private func refused(_ user: String) {
        logger.info("the store refused a held model (deleted donations or a newer state); dropped")
        drop(user)
        stale.remove(user)
    }

    private func drop(_ user: String) {
        behind.remove(user)
        answerable.forget(user)
        guard let entry = entries.removeValue(forKey: user) else { return }
        bytesInMemory -= entry.bytes
        publish()
    }

    /// Evicts least recently used models (caught up and saved first) until the budget holds; the one just read
    /// (`user`) stays, and so does the most recently used one.
    private func evict(keeping user: String?, now: Date) async {
        while bytesInMemory > budget, entries.count > 1 {
            let lastUse = answerable.lastUses()
            guard let victim = entries.keys.filter({ $0 != user }).min(by: { lastUse[$0, default: 0] < lastUse[$1, default: 0] }) else { return }
            if stale.contains(victim) { try? await fold(victim, now: now) }
            await save(victim, now: now)
            drop(victim)
        }
    }

    private func publish() {
        metrics?.held(models: entries.count, bytes: bytesInMemory)
    }
}

/// The held models a `LiveModelCache` offers to questions asked off its actor (`heldForQuestion`), with the
/// store's marks they were offered at, and the order in which held models were last used (eviction's).
/// The actor withdraws every offer on any change to what it holds or noticed, before it goes on.
final class AnswerableModels: Sendable {
    private struct State {
        var models: [String: (live: LiveModel, version: UInt64)] = [:]
        /// The erasure and donation marks the offers were made at (nil: a store no other process writes).
        var marks: (erasures: Int64, donations: Int64)?
        var clock: UInt64 = 0
        var lastUse: [String: UInt64] = [:]
    }
    private let state = Mutex(State())

    /// Offers `live` at `version` for `user`'s questions while the store's marks stay `marks`.
    func offer(_ user: String, live: LiveModel, version: UInt64, marks: (erasures: Int64, donations: Int64)?) {
        state.withLock { state in
            if let marks, state.marks.map({ $0 != marks }) ?? true { state.models.removeAll() }
            state.marks = marks
            state.models[user] = (live, version)
        }
    }

    /// The model offered for `user` while the store's marks are `marks` (those the offer was made at), marked used.
    func take(_ user: String, marks: (erasures: Int64, donations: Int64?)?) -> (live: LiveModel, version: UInt64)? {
        state.withLock { state in
            guard let held = state.models[user] else { return nil }
            if let marks {
                guard let offered = state.marks, marks.erasures == offered.erasures, marks.donations == offered.donations else { return nil }
            }
            state.clock += 1
            state.lastUse[user] = state.clock
            return held
        }
    }

    /// Withdraws every offer (the actor changed what it holds, folds or noticed).
    func withdrawAll() {
        state.withLock { state in if !state.models.isEmpty { state.models.removeAll() } }
    }

    /// Marks `user`'s model used now.
    func use(_ user: String) {
        state.withLock { state in
            state.clock += 1
            state.lastUse[user] = state.clock
        }
    }

    /// When each held model was last used (larger: later).
    func lastUses() -> [String: UInt64] { state.withLock { $0.lastUse } }

    /// Forgets `user`'s model (dropped).
    func forget(_ user: String) {
        state.withLock { state in
            state.models[user] = nil
            state.lastUse[user] = nil
        }
    }

    /// Forgets every model (all dropped).
    func forgetAll() {
        state.withLock { state in
            state.models.removeAll()
            state.lastUse.removeAll()
        }
    }
}

/// When folds stop learning donations: never, until shutdown sets it. Read between donations by a fold
/// in flight on another thread.
final class FoldDeadline: Sendable {
    private let instant = Mutex<ContinuousClock.Instant?>(nil)

    func set(_ deadline: ContinuousClock.Instant) { instant.withLock { $0 = deadline } }

    var passed: Bool {
        guard let deadline = instant.withLock({ $0 }) else { return false }
        return ContinuousClock.now >= deadline
    }
}

/// What a `LiveModelCache` reports as it works (the service exports it as metrics).
public protocol LiveModelMetrics: Sendable {
    /// A model was fitted anew: read without a usable saved state, or refitted after many deletions.
    func refitted()
    /// The models now held and their bytes.
    func held(models: Int, bytes: Int)
}
