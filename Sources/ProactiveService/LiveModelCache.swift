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
/// none), then kept: each later read only folds in what the store changed
/// since (`Engine.refresh`), so a donation is learned at the next question
/// or the next `flush`, whichever comes first. The least recently used
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
    /// - Throws: `EngineError.noDonations` when the user has none.
    public func live(user: String, now: Date = Date()) throws -> LiveModel {
        clock += 1
        if var entry = entries[user] {
            if stale.remove(user) != nil {
                try engine.refresh(&entry.live, now: now)
                if entry.live.refitted { metrics?.refits.increment() }  // many deletions: refitted
            }
            entry.lastUse = clock
            entries[user] = entry
            return entry.live
        }
        stale.remove(user)
        var live = try engine.liveModel(user: user, now: now)
        if live.refitted { metrics?.refits.increment() }
        live.acknowledgeLoad()  // held from now on: `refitted` says what a later refresh did
        let bytes = live.model.serialized().count
        entries[user] = Entry(live: live, bytes: bytes, lastUse: clock, savedHighWater: live.key.highWater)
        bytesInMemory += bytes
        try evict(keeping: user, now: now)
        publish()
        return live
    }

    /// Notes that the users' donations changed (the next read folds them in).
    public func donated(users: some Sequence<String>) {
        for user in users where entries[user] != nil { stale.insert(user) }
    }

    /// Drops every held model without saving it (after a deletion).
    public func dropAll() {
        entries.removeAll()
        stale.removeAll()
        bytesInMemory = 0
        publish()
    }

    /// Folds pending donations into the held models and saves those that learned something.
    public func flush(now: Date = Date()) {
        for user in stale {
            guard var entry = entries[user] else { continue }
            do {
                try engine.refresh(&entry.live, now: now)
                if entry.live.refitted { metrics?.refits.increment() }
            } catch {
                logger.warning("could not refresh a held model; dropped", metadata: ["error": "\(error)"])
                drop(user)
                continue
            }
            entries[user] = entry
        }
        stale.removeAll()
        saveAll(now: now)
    }

    /// Saves every held model that learned something since its last save.
    public func saveAll(now: Date = Date()) {
        for user in Array(entries.keys) { save(user, now: now) }
    }

    /// How many models are held.
    public var count: Int { entries.count }

    // MARK: Pieces

    private func save(_ user: String, now: Date) {
        guard var entry = entries[user], entry.live.key.highWater != entry.savedHighWater || entry.live.folded > 0 else { return }
        do {
            try engine.save(&entry.live, now: now)
            entry.savedHighWater = entry.live.key.highWater
            entries[user] = entry
        } catch {
            logger.warning("could not save a held model", metadata: ["error": "\(error)"])
        }
    }

    private func drop(_ user: String) {
        guard let entry = entries.removeValue(forKey: user) else { return }
        bytesInMemory -= entry.bytes
        publish()
    }

    /// Evicts least recently used models (saved first) until the budget holds; the one just read stays.
    private func evict(keeping user: String, now: Date) throws {
        while bytesInMemory > budget, entries.count > 1 {
            guard let victim = entries.filter({ $0.key != user }).min(by: { $0.value.lastUse < $1.value.lastUse })?.key else { return }
            if stale.remove(victim) != nil, var entry = entries[victim] {
                try? engine.refresh(&entry.live, now: now)
                entries[victim] = entry
            }
            save(victim, now: now)
            drop(victim)
        }
    }

    private func publish() {
        metrics?.modelsInMemory.record(entries.count)
        metrics?.modelBytes.record(bytesInMemory)
    }
}
