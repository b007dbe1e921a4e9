import Foundation
import Logging
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
/// next read unlearns from the store, and no held copy can save deleted
/// values back.
public actor LiveModelCache {
    struct Entry {
        var live: LiveModel
        var bytes: Int
        var lastUse: UInt64
        var savedHighWater: Int64
    }

    /// The engine models are read and saved with (the owner's: models are per user, not per app).
    public let engine: Engine
    public let budget: Int
    let metrics: ServiceMetrics?
    let logger: Logger
    private var entries: [String: Entry] = [:]
    /// Reads in flight, and the `generation` each started in.
    private struct Loading {
        var task: Task<(live: LiveModel, bytes: Int, refitted: Bool), any Error>
        var generation: Int
    }
    private var loading: [String: Loading] = [:]
    /// Counts `dropAll`s: a read that started before one is answered but not held.
    private var generation = 0
    /// Folds and saves in flight, and the background folder of donations.
    private var refreshing: [String: Task<LiveModel, any Error>] = [:]
    private var saving: [String: Task<LiveModel?, Never>] = [:]
    private var drainer: Task<Void, Never>?
    private var clock: UInt64 = 0
    /// Users whose donations changed since their model was last refreshed.
    private var stale: Set<String> = []
    public private(set) var bytesInMemory = 0

    public init(engine: Engine, budget: Int, metrics: ServiceMetrics? = nil, logger: Logger = Logger(label: "proactive.models")) {
        self.engine = engine
        self.budget = budget
        self.metrics = metrics
        self.logger = logger
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
        clock += 1
        if !waiting, var entry = entries[user] {
            if stale.contains(user), drainer == nil { drainer = Task(priority: .background) { await self.drain() } }
            entry.lastUse = clock
            entries[user] = entry
            return entry.live
        }
        if entries[user] != nil {
            if stale.contains(user) || refreshing[user] != nil { try await fold(user, now: now) }
            guard var entry = entries[user] else { return try await live(user: user, now: now) }  // dropped meanwhile: read again
            entry.lastUse = clock
            entries[user] = entry
            return entry.live
        }
        if let pending = loading[user] { return try await pending.task.value.live }
        let engine = engine
        let pending = Loading(task: Task.detached {
            var live = try engine.liveModel(user: user, now: now)
            let refitted = live.refitted
            live.acknowledgeLoad()  // held from now on: `refitted` says what a later refresh did
            return (live, live.model.serialized().count, refitted)
        }, generation: generation)
        loading[user] = pending
        defer { if loading[user]?.generation == pending.generation { loading[user] = nil } }
        let (live, bytes, refitted) = try await pending.task.value
        if refitted { metrics?.refits.increment() }
        // Deletions dropped every model while this one was read: it may hold deleted donations.
        guard pending.generation == generation, entries[user] == nil else { return live }
        entries[user] = Entry(live: live, bytes: bytes, lastUse: clock, savedHighWater: live.key.highWater)
        bytesInMemory += bytes
        await evict(keeping: user, now: now)
        publish()
        return live
    }

    /// Notes that the users' donations changed, and folds them into the held
    /// models in the background (one user at a time, off this actor); a
    /// question about a user not folded yet folds it first.
    public func donated(users: some Sequence<String>) {
        for user in users where entries[user] != nil || loading[user] != nil { stale.insert(user) }
        if drainer == nil, !stale.isEmpty { drainer = Task(priority: .background) { await self.drain() } }
    }

    /// Drops every held model without saving it (after a deletion), once the saves in flight are written
    /// (so the caller's settling of deletions comes after them).
    public func dropAll() async {
        entries.removeAll()
        stale.removeAll()
        loading.removeAll()
        refreshing.removeAll()
        generation += 1
        bytesInMemory = 0
        publish()
        for task in Array(saving.values) { _ = await task.value }
    }

    /// Folds pending donations into the held models and saves those that learned something.
    public func flush(now: Date = Date()) async {
        for task in Array(refreshing.values) { _ = try? await task.value }
        for user in Array(stale) where entries[user] != nil { try? await fold(user, now: now) }
        await saveAll(now: now)
    }

    /// Saves every held model that learned something since its last save.
    public func saveAll(now: Date = Date()) async {
        for user in Array(entries.keys) { await save(user, now: now) }
    }

    /// How many models are held.
    public var count: Int { entries.count }

    // MARK: Pieces

    /// Catches the held model of `user` up with the store in a task off this actor (one at a time per user):
    /// waits for a fold in flight, then folds again if donations came since it started. A fold's task
    /// installs its result before it ends, so whoever awaits it then reads the caught-up model.
    private func fold(_ user: String, now: Date, priority: TaskPriority? = nil) async throws {
        if let pending = refreshing[user] { _ = try? await pending.value }
        guard stale.remove(user) != nil, let held = entries[user]?.live else { return }
        let engine = engine
        let started = generation
        let task = Task.detached(priority: priority) { () throws -> LiveModel in
            var live = held
            do { try engine.refresh(&live, now: now) } catch {
                await self.foldFailed(user, generation: started, error: error)
                throw error
            }
            await self.install(user, live, generation: started)
            return live
        }
        refreshing[user] = task
        _ = try await task.value
    }

    private func install(_ user: String, _ live: LiveModel, generation started: Int) {
        guard started == generation else { return }  // dropped meanwhile (a deletion)
        refreshing[user] = nil
        if live.refitted { metrics?.refits.increment() }  // many deletions: refitted
        guard var entry = entries[user] else { return }
        entry.live = live
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
        while let user = stale.first(where: { entries[$0] != nil && refreshing[$0] == nil }) {
            try? await fold(user, now: Date(), priority: .background)
        }
        drainer = nil
    }

    /// Saves a held model that learned something since its last save, in a task off this actor.
    private func save(_ user: String, now: Date) async {
        guard saving[user] == nil, let entry = entries[user],
              entry.live.key.highWater != entry.savedHighWater || entry.live.folded > 0 else { return }
        let engine = engine
        let started = generation
        let held = entry.live
        let task = Task.detached { () -> LiveModel? in
            var live = held
            do { try engine.save(&live, now: now) } catch { return nil }
            return live
        }
        saving[user] = task
        let saved = await task.value
        saving[user] = nil
        guard let saved else {
            logger.warning("could not save a held model", metadata: ["user_models": "\(entries.count)"])
            return
        }
        guard started == generation, var current = entries[user] else { return }
        // The saved copy's counters start anew; a fold that came meanwhile keeps its own (it is saved next time).
        if current.live.key.highWater == saved.key.highWater { current.live = saved }
        current.savedHighWater = saved.key.highWater
        entries[user] = current
    }

    private func drop(_ user: String) {
        guard let entry = entries.removeValue(forKey: user) else { return }
        bytesInMemory -= entry.bytes
        publish()
    }

    /// Evicts least recently used models (caught up and saved first) until the budget holds; the one just read stays.
    private func evict(keeping user: String, now: Date) async {
        while bytesInMemory > budget, entries.count > 1 {
            guard let victim = entries.filter({ $0.key != user }).min(by: { $0.value.lastUse < $1.value.lastUse })?.key else { return }
            if stale.contains(victim) { try? await fold(victim, now: now) }
            await save(victim, now: now)
            drop(victim)
        }
    }

    private func publish() {
        metrics?.modelsInMemory.record(entries.count)
        metrics?.modelBytes.record(bytesInMemory)
    }
}
