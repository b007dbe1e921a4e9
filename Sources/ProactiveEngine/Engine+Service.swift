import Foundation
import ProactiveCore
import ProactiveModels
import ProactiveRanking
import ProactiveStore

// MARK: - What a long-running surface needs

/// The pieces a service that keeps live models in memory (`proactive serve`)
/// needs beyond the one-shot queries: catch a held model up, save it when the
/// holder decides, rank with a model already loaded, and store a batch with an
/// answer per donation.
extension Engine {
    /// Folds into a held model what the store changed since it was read or
    /// last refreshed (new donations learned, deleted ones unlearned).
    /// The state is saved here only when it unlearned something (so deleted
    /// values do not stay in saved bytes) or had to be refitted; otherwise
    /// saving is the holder's call (`save`).
    /// `live.refitted` and `live.caughtUp` then say what this refresh did.
    /// `stop` (asked between donations) ends the folding early, as at shutdown: the model is then
    /// consistent with the donations it learned, and the rest stay pending for the next refresh.
    /// - Returns: `false` when `stop` ended it with donations left to learn.
    @discardableResult
    public func refresh(_ live: inout LiveModel, now: Date = Date(), stop: (@Sendable () -> Bool)? = nil) throws -> Bool {
        live.acknowledgeLoad()
        var engine = self
        engine.savesFoldedStates = false  // the holder saves (`save`)
        let before = live.key
        let complete = try engine.catchUp(&live, now: now, stop: stop)
        if live.unlearned > 0 { live.unlearned = 0 }  // catchUp saved it
        if live.latest == nil || live.key.highWater != before.highWater || live.key.erasureMark != before.erasureMark {
            try rememberLatest(&live)
        }
        return complete
    }

    /// Saves a held model and starts its count of donations folded since the last save anew.
    /// - Returns: false when the store refused it: another process deleted donations the model still holds
    ///   (or saved a state further along). The holder must then drop it and read the user's model again,
    ///   which unlearns the deletions; its counts are left as they were.
    @discardableResult
    public func save(_ live: inout LiveModel, now: Date = Date()) throws -> Bool {
        var lives = [live]
        let written = try save(&lives, now: now)
        live = lives[0]
        return written[0]
    }

    /// Saves held models in one transaction (each as `save` does) and starts the counts of those written anew.
    /// - Returns: per model, whether it was written (see `save(_:now:)`).
    @discardableResult
    public func save(_ lives: inout [LiveModel], now: Date = Date()) throws -> [Bool] {
        // A model read for scoring only has learned nothing since it was read: there is nothing to save.
        let saving = lives.indices.filter { !lives[$0].scoringOnly }
        let saved = saving.map { lives[$0].saved(now: now) }
        var written = [Bool](repeating: false, count: lives.count)
        for (index, result) in zip(saving, try states.save(saved)) { written[index] = result }
        for (position, index) in saving.enumerated() where written[index] {
            lives[index].savedBytes = saved[position].bytes.count + (saved[position].heavy?.count ?? 0)
            lives[index].folded = 0
            lives[index].unlearned = 0
        }
        return written
    }

    /// What ranking needs for the user of a model already loaded.
    public func rankingSession(_ live: LiveModel) throws -> RankingSession {
        rankingSession(live, inputs: try rankingInputs(user: live.user))
    }

    /// What ranking reads from the store besides the model: the user's declarations and
    /// feedback, and the Focus filters. A holder may keep them while the store does not change.
    public struct RankingInputs: Sendable {
        public var declarations: Declarations
        public var feedback: [FeedbackEvent]
        public var filters: FocusFilterEngine
    }

    public func rankingInputs(user: String) throws -> RankingInputs {
        let (declarations, feedback) = try declarations(user: user)
        return RankingInputs(declarations: declarations, feedback: feedback, filters: try focusFilters())
    }

    /// `rankingSession` with the inputs already read.
    public func rankingSession(_ live: LiveModel, inputs: RankingInputs) -> RankingSession {
        RankingSession(engine: self, live: live, declarations: inputs.declarations, feedback: inputs.feedback,
                       gate: FocusCriteriaGate(filters: inputs.filters, criteria: live.criteria))
    }

    // MARK: Batches

    /// How one donation of a batch went.
    public enum BatchOutcome: Sendable, Equatable {
        /// Stored (as returned: Focus filled from the timeline).
        case stored(Donation)
        /// The same `(app, identifier)` or the same donation was already stored: nothing new.
        case duplicate
        /// Not stored, and why.
        case rejected(String)
    }

    /// Stores a batch as the acting party, each donation on its own in one
    /// transaction (as `import` keeps the good lines of a file): a donation the
    /// store refuses is reported and the others are kept.
    /// - Throws: `StoreError(.accessDenied)` when any donation is for an app the
    ///   acting party may not donate for (nothing is stored); store failures.
    public func donate(batch: [Donation]) throws -> [BatchOutcome] {
        let prepared = try prepare(batch: batch)
        let store = AppScopedDonationStore(donations, access: access)
        return Self.outcomes(prepared, try store.inOneTransaction { appender in try appender.appendEach(prepared: prepared) })
    }

    /// A batch checked and encoded for storing, as `donate(batch:)` does before its write
    /// (the acting party's right to donate for every app, Focus filled from the timeline),
    /// for a writer that commits several batches at once (`DonationStore.appendEach(batches:)`).
    /// - Throws: `StoreError(.accessDenied)` when any donation is for an app the acting party may not donate for.
    public func prepare(batch: [Donation]) throws -> PreparedDonations {
        for donation in batch { try access.require(app: donation.app, to: "donate for") }
        let timeline = try focusTimeline().timeline
        return PreparedDonations(batch.map(timeline.enrich))  // encoded before the write lock: writers hold it only to insert
    }

    /// Stores prepared batches in one write transaction (each donation on its own, a failing batch
    /// alone refused: `DonationStore.appendEach(batches:)`), for a writer that groups the
    /// batches of concurrent callers (`DonationCommitter`).
    /// - Returns: per batch, per donation: true when stored, false when a duplicate, or why it was refused;
    ///   or why the whole batch was refused.
    /// - Throws: `StoreError` when the transaction could not be written (then none of the batches is stored).
    public func commit(batches: [PreparedDonations]) throws(StoreError) -> [Result<[Result<Bool, StoreError>], StoreError>] {
        try donations.appendEach(batches: batches)
    }

    /// How a holder of models and inputs read from this store sees other connections' commits and
    /// deletions (a connection of its own); nil for an in-memory store, which no other process writes.
    public func changeWatch() -> (any StoreChangeWatch)? {
        storage.changeWatch()
    }

    /// Per donation of a prepared batch, how storing it went (`appendEach`'s answers).
    private static func outcomes(_ prepared: PreparedDonations, _ results: [Result<Bool, StoreError>]) -> [BatchOutcome] {
        zip(prepared.donations, results).map { donation, result in
            switch result {
            case let .success(stored): return stored ? .stored(donation) : .duplicate
            case let .failure(error): return .rejected(error.message)
            }
        }
    }
}

// MARK: - Feedback

extension Engine {
    /// What recording one feedback event did.
    public struct RecordedFeedback: Sendable {
        public var event: FeedbackEvent
        /// A tap also donates what it ran: the donation, and whether it was new.
        public var donation: Donation?
        public var donationStored: Bool
    }

    /// Records the user's feedback events (owner only, as `feedback add` and
    /// `feedback import`); a tap is also stored as a donation of what it ran.
    /// `utcOffset` (seconds east of UTC) is the offset stored dates are written in.
    ///
    /// ```swift
    /// let notNow = try FeedbackEvent.make(date: Date(), kind: .dismiss,
    ///                                     scope: .widget(WidgetID(app: "com.example.coffee", kind: "order")))
    /// try engine.recordFeedback([notNow], user: "me", utcOffset: 0)
    /// ```
    /// - Throws: `StoreError(.accessDenied)` under an app's access; `StoreError(.recordingPaused)`
    ///   while recording is paused (nothing is stored).
    @discardableResult
    public func recordFeedback(_ events: [FeedbackEvent], user: String, utcOffset: Int) throws -> [RecordedFeedback] {
        try access.requireAdministrator(to: "record feedback")
        try storage.declarations.appendFeedback(events.map { event in
            StoredFeedback(user: user, date: event.date, kind: event.kind.rawValue, scope: event.scope.description, app: event.app,
                           eventJSON: FeedbackCodec.encode(event, utcOffset: utcOffset))
        })
        return try events.map { event in
            guard let donation = event.donation(user: user, utcOffset: utcOffset) else {
                return RecordedFeedback(event: event, donation: nil, donationStored: false)
            }
            let result = try donations.append(donation, duplicates: .skip)
            return RecordedFeedback(event: event, donation: donation, donationStored: result.inserted == 1)
        }
    }

    /// What a piece of feedback is about, as a person names it.
    public enum FeedbackSubject: Sendable, Hashable {
        /// A target key (`Suggestion.target`, `Prediction.Row.target`) the user's donations or the declarations know.
        case target(String)
        /// A widget by name, read as `stackDecision` reads names (`RankingSession.resolveWidget`).
        case widget(String)
        /// A whole app (`never` and `undoNever` only).
        case app(String)
    }

    /// The event for the user's feedback about `subject` at `date`, ready for `recordFeedback`.
    /// A tap on a target also carries the target as the action it ran (so recording it donates it).
    ///
    /// ```swift
    /// let never = try engine.feedbackEvent(user: "me", kind: .never, about: .app("com.example.news"),
    ///                                      context: ["focus": "work"], at: Date())
    /// try engine.recordFeedback([never], user: "me", utcOffset: 0)
    /// ```
    /// - Throws: `EngineError(.invalidRequest)` for a target the user's history and the declarations
    ///   do not know, or a widget name none answers to; `FeedbackError` when the kind does not fit
    ///   the subject (a dismissal of a whole app).
    public func feedbackEvent(user: String, kind: FeedbackKind, about subject: FeedbackSubject, context: [String: String] = [:],
                              at date: Date) throws -> FeedbackEvent {
        let resolver = TargetResolver(definitions: try definitions())
        let training = TrainingSet(donations: try donations.donations(forUser: user, in: .all), resolver: resolver)
        let (declarations, _) = try declarations(user: user)
        let ranker = Ranker(declarations: declarations, targets: training.targets, resolver: resolver)
        switch subject {
        case let .target(text):
            let key = TargetKey(rawValue: text)
            guard let known = ranker.targets[key] else { throw EngineError(.invalidRequest, "user \(user) has no target \(text)") }
            return try FeedbackEvent.make(date: date, kind: kind, scope: .target(key), app: known.app, context: context,
                                          action: kind == .tap ? WidgetConfiguration(intent: known.intent, parameters: known.parameters) : nil)
        case let .widget(name):
            var uses: [TargetKey: Double] = [:]
            for event in training.events { uses[event.target, default: 0] += event.weight }
            let catalogue = Set(ranker.suggestibleWidgets + declarations.widgets).sorted()
            let widget = try RankingSession.resolveWidget(name, in: catalogue, uses: uses, ranker: ranker)
            return try FeedbackEvent.make(date: date, kind: kind, scope: .widget(widget), context: context)
        case let .app(app):
            return try FeedbackEvent.make(date: date, kind: kind, scope: .app(app), context: context)
        }
    }
}
