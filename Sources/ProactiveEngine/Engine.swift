import Foundation
import LinearAlgebra
import ProactiveCore
import ProactiveModels
import ProactiveRanking
import ProactiveStore

// MARK: - The engine

/// The one entry point for apps that embed Proactive and for the CLI: a store
/// plus the live model states kept in it.
///
/// ```swift
/// let engine = try Engine(path: "proactive.sqlite")
/// try engine.train(user: "me")                                  // once
/// _ = try engine.donate(Donation(user: "me", app: "com.example.coffee", intent: "OrderCoffeeIntent",
///                                parameters: ["item": .string("latte")], date: Date()))
/// let top = try engine.predict(user: "me", at: Date(), k: 4)     // reads the live state, never refits
/// ```
///
/// **Live states.** Each user's model is saved with a key (the donation
/// high-water mark, the erasure-journal mark, and digests of the intent
/// definitions, the Focus timeline and the model options). Reading a state
/// whose key is behind the store catches it up: donations stored since are
/// learned in id order (as an online evaluation learns a test log), deleted
/// ones unlearned (`model_erasure` journals them in the deleting
/// transaction). Only a change of definitions, Focus timeline or options
/// refits. A caught-up state is saved again when it unlearned any (so deleted
/// values do not stay in saved bytes) and, unless its holder saves it, when
/// folding did work the next reader would repeat (see `catchUp`).
public struct Engine: Sendable {
    /// The store; adapters reach it through the Engine's methods, never directly.
    package let storage: any StoreBackend
    /// Who acts: the device owner, or one app (which sees and changes only its own data).
    public let access: StoreAccess
    /// Intent definitions overlaying the stored ones (a definitions file the caller read), if any.
    public var definitionsOverlay: [IntentDefinition]
    /// A query saves a caught-up state once it has folded this many donations, when
    /// folding ran a scheduled refit, or when folding took longer than `persistAfterMilliseconds`.
    public var persistAfter = 64
    public var persistAfterMilliseconds = 25
    /// False when the caller holds the model and decides itself when to save it (the service):
    /// then a catch-up saves only after unlearning.
    public var savesFoldedStates = true
    /// How many of the user's previous donations a moment carries.
    public var recentLimit = 16
    /// Told about each stored declaration or feedback event that no longer
    /// decodes (written before a stricter rule) and is skipped: one app's bad
    /// row must not take down every other app's suggestions.
    public var skippedStoredData: @Sendable (String) -> Void = { _ in }

    /// The engine on `storage`, acting as `access`.
    ///
    /// ```swift
    /// let engine = Engine(storage: try SQLiteBackend(path: "proactive.sqlite"), access: .app("com.example.coffee"))
    /// ```
    public init(storage: any StoreBackend, access: StoreAccess = .administrator, definitionsOverlay: [IntentDefinition] = []) {
        self.storage = storage
        self.access = access
        self.definitionsOverlay = definitionsOverlay
    }

    /// The engine on an open SQLite store (`SQLiteBackend`).
    public init(database: ProactiveDatabase, access: StoreAccess = .administrator, definitionsOverlay: [IntentDefinition] = []) {
        self.init(storage: SQLiteBackend(database), access: access, definitionsOverlay: definitionsOverlay)
    }

    /// Opens the SQLite store file at `path` (see `ProactiveDatabase.init(path:mode:)`).
    public init(path: String, mode: StoreOpenMode = .createIfMissing, access: StoreAccess = .administrator) throws {
        self.init(storage: try SQLiteBackend(path: path, mode: mode), access: access)
    }

    var states: any ModelStateStore { storage.states }
    var donations: any DonationStore { storage.donations }

    // MARK: Inputs

    /// The stored intent definitions overlaid with `definitionsOverlay`.
    public func definitions() throws -> IntentDefinitionSet {
        var set = try IntentDefinitionSet(storage.definitions.all())
        for definition in definitionsOverlay { try set.add(definition) }
        return set
    }

    /// The Focus schedules (with their row ids, same order) and manual changes as a timeline.
    public func focusTimeline() throws -> (timeline: FocusTimeline, ids: [Int64], digest: String) {
        let store = storage.focus
        let rows = try store.schedules()
        var schedules: [FocusSchedule] = []
        var text = ""
        for row in rows {
            guard let zone = TimeZone(identifier: row.timeZone) else {
                throw EngineError(.unreadableStoredData, "Focus schedule \(row.id): unknown time zone \"\(row.timeZone)\" in the store")
            }
            schedules.append(try FocusSchedule(focus: row.focus, weekdays: row.weekdays, start: row.startMinute, end: row.endMinute, timeZone: zone))
            text += "s \(row.focus) \(row.weekdays.sorted()) \(row.startMinute) \(row.endMinute) \(row.timeZone)\n"
        }
        let changes = try store.changes().map { ManualFocusChange(date: $0.date, focus: $0.focus) }
        for change in changes { text += "c \(change.date.timeIntervalSince1970) \(change.focus ?? "-")\n" }
        return (FocusTimeline(schedules: schedules, changes: changes), rows.map(\.id), digest(text))
    }

    func inputs(for user: String, _ choice: ModelChoice) throws -> UserInputs {
        try choice.validate()
        let zoneName = try choice.timeZoneOverride ?? donations.timeZone(forUser: user)
        let zone = try zoneName.map { name throws(EngineError) in
            guard let zone = TimeZone(identifier: name) else {
                throw EngineError(.invalidRequest, "user \(user): unknown time zone \"\(name)\"")
            }
            return zone
        }
        let definitions = try definitions()
        let focus = try focusTimeline()
        let definitionsText = JSONWriter.string(.array(definitions.definitions.map(\.intentJSON)))
        return UserInputs(user: user, choice: choice, zoneName: zoneName, zone: zone, resolver: TargetResolver(definitions: definitions),
                          timeline: focus.timeline, definitionsDigest: digest(definitionsText), focusDigest: focus.digest)
    }

    // MARK: Live models

    /// The user's live model: the saved state caught up with the store, or a
    /// fresh fit when there is no usable state (then saved).
    /// - Throws: `EngineError.noDonations` when the user has none.
    public func liveModel(user: String, _ choice: ModelChoice = ModelChoice(), now: Date = Date()) throws -> LiveModel {
        try liveModel(try inputs(for: user, choice), now: now)
    }

    /// `liveModel(user:_:now:)` with the user's inputs read.
    func liveModel(_ inputs: UserInputs, now: Date) throws -> LiveModel {
        BLAS.openAhead()  // as in `readForScoring`
        return try liveModel(inputs, saved: try states.load(user: inputs.user, name: inputs.choice.name), now: now)
    }

    /// `liveModel(_:now:)` from the user's saved state already read whole (nil: none is saved).
    func liveModel(_ inputs: UserInputs, saved: SavedModelState?, now: Date) throws -> LiveModel {
        precondition(saved.map { !$0.heavyIsPrefix && ($0.heavy != nil || !$0.hasHeavyPart) } ?? true, "a state read whole")
        let (user, choice) = (inputs.user, inputs.choice)
        var problem: String
        if let saved {
            let wanted = inputs.key(highWater: 0, erasureMark: 0, donationCount: 0)
            if saved.key.isCompatible(with: wanted) {
                do {
                    var live = try caughtUp(saved, inputs: inputs, now: now)
                    try rememberLatest(&live)
                    return live
                } catch {
                    problem = "the saved \(choice.name) state was unreadable (\(error)); rebuilt from the donations"
                }
            } else {
                problem = "the saved \(choice.name) state was fitted under other "
                    + [saved.key.definitionsDigest != wanted.definitionsDigest ? "intent definitions" : nil,
                       saved.key.focusDigest != wanted.focusDigest ? "Focus schedules" : nil,
                       saved.key.options != wanted.options ? "options (\(saved.key.options))" : nil]
                    .compactMap { $0 }.joined(separator: " and ") + "; refitted"
            }
        } else {
            problem = "no saved \(choice.name) state for user \(user); fitted now and " + (storage.isReadOnly ? "not saved (the store is read-only)" : "saved")
        }
        var live = try fit(inputs, prior: try savedPrior(user: user, choice), now: now)
        live.notes.append(problem)
        try persist(live, now: now)
        try rememberLatest(&live)
        return live
    }

    /// The user's saved state read without all of its heavy part, for questions at `date` only (see
    /// `LiveModel.scoringOnly`), when that is all they need: a state saved in two, fitted for the current
    /// inputs, with nothing stored or deleted since it was saved, whose newest event is not after `date`.
    /// Without `explaining`, the light part alone is read; with it, also the heavy part but its tail (the
    /// training rows), which a state saved before model format 12, or of a model without rows, cannot give.
    /// - Returns: nil when the whole state must be read (`liveModel`).
    func scoringModel(_ inputs: UserInputs, at date: Date, explaining: Bool = false) throws -> LiveModel? {
        if case let .scoring(live) = try readForScoring(inputs, at: date, explaining: explaining) { return live }
        return nil
    }

    /// `predict`'s model: `scoringModel(_:at:explaining: true)`, else the live model (`liveModel`), from the
    /// same read when it gave the whole state (a model without training rows, or saved before format 12).
    func explainingModel(_ inputs: UserInputs, at date: Date, now: Date) throws -> LiveModel {
        switch try readForScoring(inputs, at: date, explaining: true) {
        case let .scoring(live): return live
        case let .whole(saved): return try liveModel(inputs, saved: saved, now: now)
        case .neither: return try liveModel(inputs, now: now)
        }
    }

    /// What `readForScoring` gave.
    private enum ScoringRead {
        /// A model for scoring (and explaining) only.
        case scoring(LiveModel)
        /// The whole saved state (nil: none is saved): a read for explaining that found no tail to leave out.
        case whole(SavedModelState?)
        /// Neither: the whole state must be read.
        case neither
    }

    /// `scoringModel(_:at:explaining:)`, saying what the read gave when it is not a model for scoring.
    private func readForScoring(_ inputs: UserInputs, at date: Date, explaining: Bool) throws -> ScoringRead {
        BLAS.openAhead()  // the model computes once read: open OpenBLAS meanwhile (a no-op once open)
        let read: HeavyPartRead = explaining ? .prefix { ModelArchive.heavyPrefixLength(of: $0) } : .none
        let saved = try states.load(user: inputs.user, name: inputs.choice.name, heavy: read)
        if explaining, saved.map({ !$0.heavyIsPrefix }) ?? true { return .whole(saved) }
        guard let saved, saved.hasHeavyPart,
              saved.key.isCompatible(with: inputs.key(highWater: 0, erasureMark: 0, donationCount: 0)) else { return .neither }
        let changes = try states.changes(ofUser: inputs.user, after: saved.key.highWater, erasuresAfter: saved.key.erasureMark)
        let decoded = explaining ? saved.heavy.flatMap { try? LiveModels.decodeForExplaining(saved.bytes, heavyPrefix: $0) }
            : try? LiveModels.decodeForScoring(saved.bytes)
        guard changes.added.isEmpty, changes.erased.isEmpty,
              let model = decoded,
              LiveModels.newestEventTime(model).map({ $0 <= date.timeIntervalSince1970 }) ?? false,
              let catalogue = try? TargetCatalogue(decoding: saved.catalogue, resolver: inputs.resolver) else { return .neither }
        var key = saved.key
        (key.highWater, key.erasureMark) = (changes.highWater, changes.erasureMark)
        var live = LiveModel(model: model, key: key, trainedAt: saved.trainedAt, inputs: inputs, catalogue: catalogue)
        live.scoringOnly = true
        live.explains = explaining
        try rememberLatest(&live)
        return .scoring(live)
    }

    /// The saved state read back and caught up with the store (see `catchUp`).
    func caughtUp(_ saved: SavedModelState, inputs: UserInputs, now: Date) throws -> LiveModel {
        let model = try LiveModels.decode(saved.bytes, heavy: saved.heavy)
        let catalogue = try TargetCatalogue(decoding: saved.catalogue, resolver: inputs.resolver)
        var live = LiveModel(model: model, key: saved.key, trainedAt: saved.trainedAt, inputs: inputs, catalogue: catalogue)
        try catchUp(&live, now: now)
        return live
    }

    /// What `updateSavedModels` did.
    public struct SavedModelsUpdate: Sendable, Equatable {
        /// A state caught up and saved, with the donations folded in.
        public struct Updated: Sendable, Equatable {
            public var user: String, name: String, folded: Int
        }
        /// A state left behind: its next query catches it up (or refits it, when saved under other inputs).
        public struct Deferred: Sendable, Equatable {
            public var user: String, name: String, pending: Int, reason: String
        }
        public var updated: [Updated] = []
        public var deferred: [Deferred] = []
    }

    /// Brings every saved state that new donations left behind up to date and saves it, so the
    /// next query reads a current state instead of folding them in itself (`import` calls this).
    /// A state with more than `maxPending` new donations is left for its next query (folding
    /// them here would make a large import pay every refit on their schedule); so is one saved
    /// under other inputs, which its next query refits. Never refits.
    public func updateSavedModels(maxPending: Int = 1_000, now: Date = Date()) throws -> SavedModelsUpdate {
        var engine = self
        engine.persistAfter = 1
        var update = SavedModelsUpdate()
        for state in try states.behind() {
            guard state.pending <= maxPending else {
                update.deferred.append(.init(user: state.user, name: state.name, pending: state.pending,
                                             reason: "more than \(maxPending) new donations"))
                continue
            }
            let inputs = try inputs(for: state.user, ModelChoice(name: state.name, timeZoneOverride: nil))
            guard let saved = try states.load(user: state.user, name: state.name) else { continue }
            guard saved.key.isCompatible(with: inputs.key(highWater: 0, erasureMark: 0, donationCount: 0)) else {
                update.deferred.append(.init(user: state.user, name: state.name, pending: state.pending,
                                             reason: "saved under other inputs; its next query refits"))
                continue
            }
            do {
                let live = try engine.caughtUp(saved, inputs: inputs, now: now)
                update.updated.append(.init(user: state.user, name: state.name, folded: live.folded))
            } catch {
                update.deferred.append(.init(user: state.user, name: state.name, pending: state.pending,
                                             reason: "not updated (\(error)); its next query rebuilds it"))
            }
        }
        return update
    }

    /// Fits the user's model from scratch on every stored donation and saves it. The blend keeps
    /// the prior its saved state was pulled toward (the population's, from the last `train(users:)`),
    /// or the fixed one for a user never trained with others.
    @discardableResult
    public func train(user: String, _ choice: ModelChoice = ModelChoice(), now: Date = Date()) throws -> LiveModel {
        let inputs = try inputs(for: user, choice)
        var live = try fit(inputs, prior: try savedPrior(user: user, choice), now: now)
        live.savedBytes = try persist(live, now: now)
        return live
    }

    /// Trains every user in `users` together: the blend's population prior is learned from all
    /// of them, then each user is fitted and saved (see `prepareTraining`, `population(of:)`,
    /// `finishTraining`; `train` runs those steps in parallel with progress).
    @discardableResult
    public func train(users: [String], _ choice: ModelChoice = ModelChoice(), now: Date = Date()) throws -> [LiveModel] {
        try trainInTurn(users, choice, now: now, failed: { _, error in throw error }, stop: { false }, keeping: { _ in true }).kept
    }

    /// What `train(users:_:now:stop:keeping:)` did.
    public struct TrainingInTurn: Sendable {
        /// The trained models `keeping` chose, in user order (every trained model is saved either way).
        public var kept: [LiveModel] = []
        /// How many users were fitted and saved.
        public var fitted = 0
        /// The users that could not be trained, each failure naming its user; the others were trained.
        public var failures: [String] = []
        /// Whether `stop` ended it before every user was fitted.
        public var stopped = false
    }

    /// `train(users:)` one user after the other on the calling thread, for a caller that trains in the
    /// background (the runtime's `retrain`): a user that fails is reported and skipped, `stop` is asked
    /// before each user (true: it returns at once), and only the trained models `keeping` chooses are
    /// returned, so the caller holds those alone.
    ///
    /// ```swift
    /// let run = engine.train(users: try engine.users(), stop: { shuttingDown }, keeping: held.contains)
    /// ```
    public func train(users: [String], _ choice: ModelChoice = ModelChoice(), now: Date = Date(),
                      stop: () -> Bool, keeping: (String) -> Bool) -> TrainingInTurn {
        var failures: [String] = []
        var run = trainInTurn(users, choice, now: now, failed: { user, error in failures.append("user \(user): \(error)") },
                              stop: stop, keeping: keeping)
        run.failures = failures
        return run
    }

    /// The steps of `train(users:)` in turn (`prepareTraining`, `population(of:)`, `finishTraining`): `failed` is
    /// told each user that fails (throwing ends the training), `stop` is asked before each user.
    private func trainInTurn(_ users: [String], _ choice: ModelChoice, now: Date, failed: (String, any Error) throws -> Void,
                             stop: () -> Bool, keeping: (String) -> Bool) rethrows -> TrainingInTurn {
        var run = TrainingInTurn()
        var prepared: [UserTraining] = []
        for user in users {
            if stop() { run.stopped = true; return run }
            do { prepared.append(try prepareTraining(user: user, choice).releasingDonations()) } catch { try failed(user, error) }
        }
        let prior = Self.population(of: &prepared)
        for training in prepared {
            if stop() { run.stopped = true; return run }
            do {
                let live = try finishTraining(training, prior: prior, now: now)
                run.fitted += 1
                if keeping(live.user) { run.kept.append(live) }
            } catch { try failed(training.user, error) }
        }
        return run
    }

    /// One user's training before the prior is known: the inputs, the donations, and for the
    /// blend what its walk over them gives the population prior (`BlendTrainer.Sample`: the most
    /// recent rows and the early logistic fit; the walk itself is walked again when fitting, so
    /// memory does not hold every user's walk at once).
    public struct UserTraining: Sendable {
        public let user: String
        public var choice: ModelChoice { inputs.choice }
        let inputs: UserInputs
        let highWater: Int64
        let erasureMark: Int64
        let donationCount: Int
        /// The donations as read and prepared, and their training set; nil once released
        /// (`releasingDonations()`), then read again when the user is fitted.
        var donations: Donations?
        var sample: BlendTrainer.Sample?

        struct Donations: Sendable {
            let prepared: [Donation]
            let training: TrainingSet
        }

        /// The same training without its donations (the marks and the sample stay): fitting reads them
        /// again from the store, so holding every user's training between the walk and the fit holds
        /// their samples, not their donations. When the store changed in between (another donation,
        /// a deletion), the fit takes what the store holds then and walks it afresh.
        public func releasingDonations() -> UserTraining {
            var copy = self
            copy.donations = nil
            return copy
        }
    }

    /// "; the store's users: a, b" (at most 10, then how many more), or "; the store has no donations".
    public func knownUsersPhrase() throws -> String {
        let users = try AppScopedDonationStore(donations, access: access).users()
        guard !users.isEmpty else { return "; the store has no donations" }
        let more = users.count > 10 ? " and \(users.count - 10) more" : ""
        return "; the store's users: " + users.prefix(10).joined(separator: ", ") + more
    }

    /// Step 1 of training a user (any thread).
    /// - Throws: `EngineError.noDonations` when the user has none.
    public func prepareTraining(user: String, _ choice: ModelChoice = ModelChoice()) throws -> UserTraining {
        try prepareTraining(try inputs(for: user, choice))
    }

    /// Step 1 with the user's inputs already read; without `sampling`, no walk (a user fitted alone walks once, in `fit`).
    func prepareTraining(_ inputs: UserInputs, sampling: Bool = true) throws -> UserTraining {
        let snapshot = try states.snapshot(ofUser: inputs.user)
        guard !snapshot.donations.isEmpty else {
            throw EngineError(.noDonations, "user \(inputs.user) has no donations" + (try knownUsersPhrase()))
        }
        let prepared = snapshot.donations.map { inputs.prepare($0.donation) }
        let training = TrainingSet(donations: prepared, resolver: inputs.resolver)
        var sample: BlendTrainer.Sample?
        if sampling, let trainer = LiveModels.blendTrainer(inputs.choice.name, zone: inputs.zoneName) {
            do { sample = trainer.sample(of: try trainer.walk(training)) } catch {
                throw EngineError(.fitFailed, "user \(inputs.user): the \(inputs.choice.name) model could not be fitted: \(error)")
            }
        }
        return UserTraining(user: inputs.user, inputs: inputs, highWater: snapshot.highWater, erasureMark: snapshot.erasureMark,
                            donationCount: prepared.count, donations: .init(prepared: prepared, training: training), sample: sample)
    }

    /// Step 2: the population prior of the prepared users (the fixed prior for fewer than two blends).
    /// The samples' rows move into the pool (the trainings keep what fitting needs), so memory holds one copy.
    public static func population(of trainings: inout [UserTraining]) -> BlendTrainer.Prior {
        guard let first = trainings.first(where: { $0.sample != nil }),
              let trainer = LiveModels.blendTrainer(first.inputs.choice.name, zone: first.inputs.zoneName) else { return BlendTrainer.fixedPrior }
        var samples: [BlendTrainer.Sample] = []
        for index in trainings.indices {
            guard let sample = trainings[index].sample else { continue }
            samples.append(sample)
            trainings[index].sample = sample.withoutRows
        }
        return trainer.population(pooling: &samples)
    }

    /// Step 3: fits the prepared user with `prior` and saves the state.
    @discardableResult
    public func finishTraining(_ training: UserTraining, prior: BlendTrainer.Prior, now: Date = Date()) throws -> LiveModel {
        var live = try fit(training, prior: prior, now: now)
        live.savedBytes = try persist(live, now: now)
        return live
    }

    /// The prior the user's saved blend was pulled toward (fixed when there is none).
    public func savedPrior(user: String, _ choice: ModelChoice) throws -> BlendTrainer.Prior {
        guard let saved = try states.load(user: user, name: choice.name),
              let model = try? LiveModels.decode(saved.bytes, heavy: saved.heavy) as? BlendModel else { return BlendTrainer.fixedPrior }
        return model.prior
    }

    func fit(_ inputs: UserInputs, prior: BlendTrainer.Prior, now: Date) throws -> LiveModel {
        try fit(try prepareTraining(inputs, sampling: false), prior: prior, now: now)
    }

    func fit(_ training: UserTraining, prior: BlendTrainer.Prior, now: Date) throws -> LiveModel {
        let inputs = training.inputs
        var training = training
        if training.donations == nil {
            let reread = try prepareTraining(inputs, sampling: false)
            if (reread.highWater, reread.erasureMark, reread.donationCount) == (training.highWater, training.erasureMark, training.donationCount) {
                training.donations = reread.donations  // the same donations: the sample's logistic fit still holds
            } else {
                training = reread
            }
        }
        let donations = training.donations!
        let model: any LiveLearningModel
        do {
            if let trainer = LiveModels.blendTrainer(inputs.choice.name, zone: inputs.zoneName) {
                model = try trainer.finish(trainer.walk(donations.training, reusing: training.sample), prior: prior)
            } else {
                model = try LiveModels.fit(inputs.choice.name, donations.training, zone: inputs.zoneName)
            }
        } catch {
            throw EngineError(.fitFailed, "user \(inputs.user): the \(inputs.choice.name) model could not be fitted: \(error)")
        }
        var live = LiveModel(model: model, key: inputs.key(highWater: training.highWater, erasureMark: training.erasureMark,
                                                           donationCount: training.donationCount),
                             trainedAt: now, inputs: inputs, catalogue: TargetCatalogue(donations: donations.prepared, resolver: inputs.resolver))
        live.refitted = true
        return live
    }

    /// Folds into `live` what the store changed since its marks: deletions first (unlearned), then new donations.
    /// `stop`, asked between instants (once `stopCheckEvery` donations were learned since it was last asked), ends
    /// the folding early: the model then holds the donations learned so far and its high-water mark is the last
    /// of them, so the rest are still pending (the next catch-up learns them). Deletions are always unlearned whole.
    /// - Returns: `false` when `stop` ended it with donations left to learn.
    @discardableResult
    func catchUp(_ live: inout LiveModel, now: Date, stop: (() -> Bool)? = nil) throws -> Bool {
        if live.scoringOnly {
            // It cannot learn: the whole state is read again, in one read of its row, and caught up.
            live = try liveModel(live.inputs, now: now)
            return true
        }
        let clock = ContinuousClock()
        let started = clock.now
        let changes = try states.changes(ofUser: live.user, after: live.key.highWater, erasuresAfter: live.key.erasureMark)
        let learnedErasures = changes.erased.filter { $0.id <= live.key.highWater }
        let previous = live.key
        if !learnedErasures.isEmpty {
            // The profile unlearns an event exactly. The blend's weights were fitted on rows that saw the event
            // (its `remove` drops them all, leaving the next weight fit almost nothing to learn from) and the
            // logistic part refits anyway: a refit is the exact answer there, and after many deletions
            // (retention, forgetting an app) it is also cheaper than unlearning one by one.
            if !(live.model is ProfileModel) || learnedErasures.count * 10 > max(live.key.donationCount, 1) {
                var refit = try fit(live.inputs, prior: (live.model as? BlendModel)?.prior ?? BlendTrainer.fixedPrior, now: now)
                refit.notes = live.notes + ["refitted: \(learnedErasures.count) of \(previous.donationCount) donations deleted"]
                live = refit
                try persist(live, now: now)
                return true
            }
            for erased in learnedErasures { live.unlearn(live.inputs.prepare(erased.donation)) }
            if live.catalogue.needsRebuild {
                let remaining = try states.snapshot(ofUser: live.user).donations.filter { $0.id <= live.key.highWater }
                live.catalogue = TargetCatalogue(donations: remaining.map { live.inputs.prepare($0.donation) }, resolver: live.inputs.resolver)
            }
        }
        var refittedWhileFolding = false
        var learned = changes.added.count
        if !changes.added.isEmpty {
            let refitsBefore = live.refitMarks
            let memo = ClockMemo()  // an older donation replays every learned one: their clock inputs computed once a fold
            // The donations of one instant are learned together (each scored before any is learned).
            var sinceCheck = 0
            for run in changes.added.instantRuns(date: \.donation.date) {
                if let stop, sinceCheck >= Self.stopCheckEvery {
                    sinceCheck = 0
                    if stop() {
                        learned = run.lowerBound
                        break
                    }
                }
                live.learn(changes.added[run].map { live.inputs.prepare($0.donation) }, memo: memo)
                sinceCheck += run.count
            }
            refittedWhileFolding = live.refitMarks != refitsBefore
        }
        let complete = learned == changes.added.count
        live.key.highWater = complete ? changes.highWater : changes.added[learned - 1].id
        live.key.erasureMark = changes.erasureMark
        if learned > 0 || !learnedErasures.isEmpty {
            live.caughtUp = (learned, learnedErasures.count)
        }
        // Saving costs about as much as loading; worth it once the catch-up did work the next reader would
        // otherwise repeat: a scheduled refit (blend weights, guard, logistic), many donations, or folding that
        // took long (a replay after an out-of-order donation). A few cheap folds are not saved: every reader
        // repeats them in well under a millisecond. Saving never changes the model.
        let costly = clock.now - started > .milliseconds(persistAfterMilliseconds)
        // Consuming journal entries (even of donations never learned) is saved too, so the journal empties.
        let foldingWorthSaving = live.folded >= persistAfter || refittedWhileFolding || (live.folded > 0 && costly)
        if live.unlearned > 0 || !changes.erased.isEmpty || (savesFoldedStates && foldingWorthSaving) {
            try persist(live, now: now)
        }
        return complete
    }

    /// How many donations a catch-up learns between two looks at its `stop`.
    static let stopCheckEvery = 64

    /// Reads the user's latest donations into `live.latest` (see `moment(for:at:)`).
    func rememberLatest(_ live: inout LiveModel) throws {
        let latest = try states.recentDonations(ofUser: live.user, atOrBefore: .distantFuture, limit: recentLimit).map(live.inputs.prepare)
        live.latest = latest
        live.latestEvents = latest.map(live.inputs.event)
        live.catalogue.settle()
    }

    /// Saves the state (monotone: never over a state that is further along); on a store opened read-only
    /// nothing (the model answers from memory, and the next writable open saves it).
    /// - Returns: the size of the saved model bytes (both parts); 0 when nothing was saved.
    @discardableResult
    func persist(_ live: LiveModel, now: Date) throws -> Int {
        if storage.isReadOnly { return 0 }
        let saved = live.saved(now: now)
        try states.save(saved)
        return saved.bytes.count + (saved.heavy?.count ?? 0)
    }

    /// Brings every saved state with pending deletions up to date and saves it,
    /// so no deleted donation stays in a saved state or the journal.
    /// - Returns: the users settled.
    @discardableResult
    public func settleDeletions(now: Date = Date()) throws -> [String] {
        let users = try states.usersWithPendingErasures()
        let saved = try states.list()
        for user in users {
            for summary in saved where summary.user == user {
                // Reading the state catches it up and saves it (it consumed journal entries).
                do { _ = try liveModel(user: user, ModelChoice(name: summary.name, timeZoneOverride: nil), now: now) } catch let error as EngineError
                    where error.code == .noDonations {
                    try states.delete(user: user)
                }
            }
        }
        return users
    }

    /// Every saved state, one line each.
    public func savedModels() throws -> [ModelStateSummary] { try states.list() }
}
