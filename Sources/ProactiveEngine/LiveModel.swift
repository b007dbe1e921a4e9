import Foundation
import ProactiveCore
import ProactiveModels
import ProactiveRanking
import ProactiveStore

// MARK: - A user's live model

/// A user's model as the store says it is now: the saved state caught up
/// with every donation stored and deleted since it was saved.
///
/// Queries read it; they never refit. It is refitted from the donations only
/// when there is no usable saved state (none, unreadable, or saved under other
/// intent definitions, Focus timeline or options), and `notes` says why.
public struct LiveModel: Sendable {
    public var user: String { inputs.user }
    /// The fitted model (`blend` unless another was chosen).
    public internal(set) var model: any LiveLearningModel
    /// What the state has learned: marks, donation count, input digests.
    public internal(set) var key: ModelStateKey
    /// When the model was last fitted from scratch.
    public internal(set) var trainedAt: Date
    /// What loading did, for a person: "fitted: no saved state", "caught up: 3 new donations".
    public internal(set) var notes: [String] = []
    /// Donations folded in and unlearned since the state was read from the store.
    public internal(set) var folded = 0
    public internal(set) var unlearned = 0
    /// What the last catch-up folded in: donations learned and deleted ones unlearned.
    public internal(set) var caughtUp: (learned: Int, unlearned: Int) = (0, 0)
    /// The size of the bytes saved by `train` (nil when this value was not saved by it).
    public internal(set) var savedBytes: Int?
    /// Whether the model was fitted (not read) in this load, or in the last `Engine.refresh` of a held model.
    public internal(set) var refitted = false
    /// Whether the model was read without all of its heavy part for one question at a moment after its
    /// newest event: without its training rows (`Engine.predict`, `explains`), or without its log records
    /// too (`Engine.suggest`). It scores; the engine reads the whole state again before it learns,
    /// unlearns or is saved, and before it explains when it was read without its log records.
    public internal(set) var scoringOnly = false
    /// Whether the model can explain its answers (it holds its log records): false only for a model read
    /// for scoring alone, without them.
    public internal(set) var explains = true

    /// Marks what the load did as reported (`refitted` false, `caughtUp` zero), for a holder
    /// that keeps the model: the flags then describe only the next refresh.
    public mutating func acknowledgeLoad() {
        refitted = false
        caughtUp = (0, 0)
    }

    /// Clears `notes` once they were told, for a holder that keeps the model: a later answer
    /// from it does not repeat "fitted: ..." (only the answer that refitted says so).
    public mutating func acknowledgeNotes() {
        notes = []
    }

    let inputs: UserInputs
    var catalogue: TargetCatalogue
    /// The user's latest `Engine.recentLimit` donations as of `key` (oldest first, prepared), and
    /// their events, read when the model was loaded or caught up: the history of any moment after
    /// the last of them, without a store read.
    var latest: [Donation]?
    var latestEvents: [Event] = []

    /// The targets the model knows, with their summaries.
    public var targets: [TargetKey: Target] { catalogue.targets }
    /// Uses of each target (a donation with count n is n uses).
    public var uses: [TargetKey: Double] { catalogue.uses }
    /// What each target is about beyond its key (Focus filters judge it).
    public var criteria: TargetCriteria { catalogue.criteria }
    /// The user's zone, when one is configured (or given); nil: each donation's own offset.
    public var zone: TimeZone? { inputs.zone }
    public var resolver: TargetResolver { inputs.resolver }
    public var timeline: FocusTimeline { inputs.timeline }

    /// A target's human summary, or its key.
    public func summary(of target: TargetKey) -> String { catalogue.entries[target]?.target.summary ?? target.rawValue }

    // MARK: Learning

    /// Learns one stored donation (prepared: Focus and zone applied); `memo`, kept across the donations of
    /// one fold, spares the model recomputing what it already computed in it (it learns the same either way).
    mutating func learn(_ prepared: Donation, memo: ClockMemo? = nil) {
        learn([prepared], memo: memo)
    }

    /// Learns stored donations in order (prepared), those of one instant together: the model scores
    /// each of them before it learns any (`LiveLearningModel.update(with:memo:)` for a batch).
    mutating func learn(_ prepared: [Donation], memo: ClockMemo? = nil) {
        model.update(with: prepared.map(inputs.event), memo: memo)
        for donation in prepared { catalogue.add(donation, resolver: inputs.resolver) }
        key.donationCount += prepared.count
        folded += prepared.count
    }

    /// What a scheduled refit changes (the blend's weights, the guard's choice, the logistic part's
    /// last fit), and folding alone does not: when it differs after folding, a refit ran.
    var refitMarks: [Double] {
        switch model {
        case let blend as BlendModel:
            blend.weights + [Double(blend.weightGuard.rowsAtChoice), blend.logistic?.lastFitTime ?? -1]
        case let logistic as LogisticModel: [logistic.lastFitTime ?? -1]
        default: []
        }
    }

    /// Unlearns one donation the store deleted (one with an id up to `key.highWater`). Its count leaves
    /// `key.donationCount` either way, so the count stays the number of the user's stored donations up to
    /// the high-water mark (what `ModelStateStore.save` compares).
    /// - Returns: false when the model never learned it.
    @discardableResult
    mutating func unlearn(_ prepared: Donation) -> Bool {
        key.donationCount -= 1
        guard model.remove(inputs.event(prepared)) else { return false }
        catalogue.remove(prepared, resolver: inputs.resolver)
        unlearned += 1
        return true
    }

    /// The row to save: the model in two parts (`PersistentModel.serializedParts()`).
    func saved(now: Date) -> SavedModelState {
        precondition(!scoringOnly, "a model read for scoring only cannot be saved")
        let (light, heavy) = model.serializedParts()
        return SavedModelState(user: user, name: inputs.choice.name, bytes: light, heavy: heavy, catalogue: catalogue.encoded(), key: key,
                               trainedAt: trainedAt, savedAt: now)
    }
}
