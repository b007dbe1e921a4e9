import Foundation
import ProactiveCore
import ProactiveModels
import ProactiveRanking
import ProactiveStore
import Synchronization

// MARK: - Moments

extension Engine {
    /// The situation at `date` for the user: the context given (Focus filled
    /// from the timeline when it has none), the clock read in the user's zone
    /// (else `utcOffset`, else the offset of the user's latest donation), and
    /// the user's last `recentLimit` donations at or before `date` (those the model held when it was
    /// loaded or caught up, when `date` is after all of them; else read from the store). The moment is
    /// asked as of its date (`Moment.asOfItsDate`): a date before the user's newest donation is answered
    /// from the donations at or before it.
    public func moment(for live: LiveModel, at date: Date, utcOffset: Int? = nil, context: [String: String] = [:]) throws -> Moment {
        let held = live.latest.flatMap { latest in
            latest.count <= recentLimit && (latest.last?.millisecondsSince1970 ?? .min) <= date.millisecondsSince1970 ? latest : nil
        }
        let recent = try held ?? states.recentDonations(ofUser: live.user, atOrBefore: date, limit: recentLimit).map(live.inputs.prepare)
        let offset = live.zone?.secondsFromGMT(for: date) ?? utcOffset ?? recent.last?.utcOffset ?? 0
        return Moment(date: date, utcOffset: offset, context: live.timeline.enrich(context: context, at: date),
                      recent: held == nil ? recent.map(live.inputs.event) : live.latestEvents, asOfItsDate: true)
    }

    /// The user's clock at `date`: the configured zone (or `zoneOverride`), else the offset of the
    /// user's latest donation at or before `date` (else their first one), else UTC; with a
    /// description for a person ("America/Los_Angeles", "UTC-08:00, the offset of the user's latest donation").
    public func clock(user: String, at date: Date, zoneOverride: String? = nil) throws -> (offset: Int, description: String) {
        if let name = try zoneOverride ?? donations.timeZone(forUser: user), let zone = TimeZone(identifier: name) {
            return (zone.secondsFromGMT(for: date), name)
        }
        let latest = try states.recentDonations(ofUser: user, atOrBefore: date, limit: 1).last
            ?? states.recentDonations(ofUser: user, atOrBefore: .distantFuture, limit: 1).last
        return Self.latestOffsetClock(latest?.utcOffset)
    }

    /// The clock of a user without a zone whose latest donation has `offset` (nil: none, or Unix seconds).
    static func latestOffsetClock(_ offset: Int?) -> (offset: Int, description: String) {
        guard let offset else { return (0, "UTC (no zone configured for the user, and no donations)") }
        // A service asks this for every question: each offset's description is written once.
        if let known = offsetDescriptions.withLock({ $0[offset] }) { return (offset, known) }
        let written = Timestamp.format(secondsSince1970: 0, utcOffsetSeconds: offset)
        let hours = offset == 0 ? "" : String(written.suffix(6))   // "+05:30", "-08:00"; 0 is written "Z"
        let description = "UTC\(hours), the offset of the user's latest donation (no zone configured)"
        offsetDescriptions.withLock { if $0.count < 512 { $0[offset] = description } }
        return (offset, description)
    }

    /// `latestOffsetClock`'s descriptions by offset (at most 512; offsets in use are a few dozen).
    private static let offsetDescriptions = Mutex<[Int: String]>([:])

    /// `clock(user:at:)` answered from a held model where it can (its zone; its latest donations when
    /// the date is after them), else from the store: what a service asks per question, without a read.
    func clock(of live: LiveModel) -> (Date) throws -> (offset: Int, description: String) {
        if let zone = live.zone, let name = live.inputs.zoneName { return { (zone.secondsFromGMT(for: $0), name) } }
        return { date in
            if let latest = live.latest, let last = latest.last, latest.count <= self.recentLimit,
               last.date.millisecondsSince1970 <= date.millisecondsSince1970 {
                return Self.latestOffsetClock(last.utcOffset)
            }
            return try self.clock(user: live.user, at: date)
        }
    }

    // MARK: Dates on the user's clock

    /// A date read on a clock: the instant, the clock's offset then, and which clock it was.
    public struct ReadDate: Sendable, Equatable {
        public var date: Date
        /// The clock's offset at `date`, in seconds east of UTC.
        public var utcOffset: Int
        /// The clock for a person, as `clock(user:at:zoneOverride:)` describes it, or "UTC (no user given)".
        public var clock: String

        public init(date: Date, utcOffset: Int, clock: String) {
            self.date = date
            self.utcOffset = utcOffset
            self.clock = clock
        }
    }

    /// Reads a date a person wrote (`DateText`) on `user`'s clock (`clock(user:at:zoneOverride:)`: their
    /// zone, else the offset of their latest donation): a wall time is that local time, a bare day its
    /// first instant (local midnight), an instant with an offset stays that instant whatever offset it was
    /// written in. Without a user, the clock is `zoneOverride`, else UTC.
    ///
    ///     try engine.readDate("2026-10-20", user: "alice")  // midnight of Oct 20 in Alice's zone
    ///
    /// - Throws: `DonationLineError` on `field` for text that is not a date, or a wall time the
    ///   user's zone skips (a daylight-saving gap).
    public func readDate(_ text: String, user: String?, zoneOverride: String? = nil, field: String = "date") throws -> ReadDate {
        let written: DateText
        do { written = try DateText.parse(text) } catch { throw DonationLineError(field: field, reason: error.reason) }
        return try readDate(written, text: text, user: user, zoneOverride: zoneOverride, field: field)
    }

    /// `readDate(_:user:zoneOverride:field:)` for text already parsed; `text` is quoted in errors.
    public func readDate(_ written: DateText, text: String, user: String?, zoneOverride: String? = nil,
                         field: String = "date") throws -> ReadDate {
        let clock: (Date) throws -> (offset: Int, description: String)
        if let user {
            clock = { try self.clock(user: user, at: $0, zoneOverride: zoneOverride) }
        } else if let zoneOverride, let zone = TimeZone(identifier: zoneOverride) {
            clock = { (zone.secondsFromGMT(for: $0), zoneOverride) }
        } else {
            clock = { _ in (0, "UTC (no user given)") }
        }
        return try Self.read(written, text: text, field: field, clock: clock)
    }

    /// `written` on `clock`; a wall time the clock skips is refused.
    static func read(_ written: DateText, text: String, field: String,
                     clock: (Date) throws -> (offset: Int, description: String)) throws -> ReadDate {
        let (date, exists) = try written.resolve(offsetAt: { try clock($0).offset })
        let reading = try clock(date)
        if !exists, case .wallTime = written {
            throw DonationLineError(field: field, reason: "\(text) does not exist in \(reading.description) (the clocks skip it at a "
                                    + "daylight-saving change); give an offset")
        }
        return ReadDate(date: date, utcOffset: reading.offset, clock: reading.description)
    }

    /// The moment of a question (predict, suggest, stack) on `user`'s clock: `text` read as
    /// `readDate` reads it, `now` when nil. A bare day is refused: it names no time of day.
    /// - Throws: `DonationLineError` on `field` (see `readDate`).
    public func readMoment(_ text: String?, user: String, zoneOverride: String? = nil, now: Date = Date(),
                           field: String = "at") throws -> ReadDate {
        guard let text else {
            let clock = try clock(user: user, at: now, zoneOverride: zoneOverride)
            return ReadDate(date: now, utcOffset: clock.offset, clock: clock.description)
        }
        return try readDate(try Self.parseMoment(text, field: field), text: text, user: user, zoneOverride: zoneOverride, field: field)
    }

    /// `readMoment(_:user:)` on a held model's clock (`live`'s zone, else the offset of the user's latest
    /// donation it holds, read from the store only for a moment before them): the same answer, without
    /// reading the store for most questions.
    public func readMoment(_ text: String?, live: LiveModel, now: Date = Date(), field: String = "at") throws -> ReadDate {
        let clock = clock(of: live)
        guard let text else {
            let reading = try clock(now)
            return ReadDate(date: now, utcOffset: reading.offset, clock: reading.description)
        }
        return try Self.read(try Self.parseMoment(text, field: field), text: text, field: field, clock: clock)
    }

    /// `readMoment(_:live:)` for text already parsed by `parseMoment` (`written`); `text` is quoted in errors.
    /// - Throws: `DonationLineError` on `field` for a wall time the user's zone skips.
    public func readMoment(_ written: DateText, text: String, live: LiveModel, field: String = "at") throws -> ReadDate {
        try Self.read(written, text: text, field: field, clock: clock(of: live))
    }

    /// `text` parsed as a question's moment, without reading it on a clock: a bare day is refused.
    /// - Throws: `DonationLineError` on `field`.
    public static func parseMoment(_ text: String, field: String = "at") throws(DonationLineError) -> DateText {
        let written: DateText
        do { written = try DateText.parse(text) } catch { throw DonationLineError(field: field, reason: error.reason) }
        if case .day = written {
            throw DonationLineError(field: field, reason: "\(text) is a day, not a moment: give a time on the user's clock, such as "
                                    + "\(text)T07:38, or an instant with an offset, such as \(text)T07:38:00-08:00")
        }
        return written
    }

    // MARK: Predict

    /// The top `k` targets at a moment with their probabilities and reasons.
    /// - Parameters:
    ///   - date: the instant asked about.
    ///   - utcOffset: the caller's clock at `date`, in seconds east of UTC (-28_800 is UTC-08:00); the
    ///     user's configured zone wins over it, and without either the offset of the user's latest donation is used.
    ///   - context: flat context (`focus`, `place`, any key); the Focus is filled from the timeline when absent.
    /// - Throws: `EngineError(.noDonations)` when the user has none.
    public func predict(user: String, at date: Date, utcOffset: Int? = nil, context: [String: String] = [:], k: Int = 4,
                        model choice: ModelChoice = ModelChoice(), now: Date = Date()) throws -> Prediction {
        let inputs = try inputs(for: user, choice)
        let live = try explainingModel(inputs, at: date, now: now)
        return try predict(live, at: date, utcOffset: utcOffset, context: context, k: k)
    }

    /// `predict` with a live model already loaded.
    public func predict(_ live: LiveModel, at date: Date, utcOffset: Int? = nil, context: [String: String] = [:], k: Int = 4) throws -> Prediction {
        // Reasons read the model's log: a model read without it is read whole first.
        let live = live.explains ? live : try liveModel(live.inputs, now: Date())
        let moment = try moment(for: live, at: date, utcOffset: utcOffset, context: context)
        let explainer = LiveModels.explainer(live.model)
        let top = live.model.distribution(at: moment).top(k)
        let why = explainer?.reasons(for: top.map(\.target), at: moment, describe: live.summary, limit: 3)
        let rows = top.enumerated().map { position, scored in
            Prediction.Row(target: scored.target, summary: live.summary(of: scored.target), probability: scored.probability,
                           why: why?[position].map(\.text) ?? [])
        }
        return Prediction(user: live.user, model: live.model.name, moment: moment, suggestions: rows,
                          activity: live.model.activityLevel(at: moment), notes: live.notes)
    }

    // MARK: Suggest

    /// The Siri-style suggestions at a moment: model probabilities fused with
    /// the apps' declarations, the user's feedback and the Focus filters.
    /// `utcOffset` and `context` as in `predict`; `developerMode` lists every candidate with its score.
    /// - Throws: `EngineError(.noDonations)` when the user has none.
    public func suggest(user: String, at date: Date, utcOffset: Int? = nil, context: [String: String] = [:], k: Int = 4,
                        developerMode: Bool = false, model choice: ModelChoice = ModelChoice(), now: Date = Date()) throws -> SuggestionResult {
        let inputs = try inputs(for: user, choice)
        let (declarations, feedback) = try declarations(user: user)
        // New content is timed by scoring the model over the day, earlier moments included: that reads its log.
        let samplesTheDay = declarations.shortcuts.shortcuts.contains { $0.shortcut.isNewContent }
        let live = try (samplesTheDay ? nil : scoringModel(inputs, at: date)) ?? liveModel(inputs, now: now)
        let session = RankingSession(engine: self, live: live, declarations: declarations, feedback: feedback,
                                     gate: FocusCriteriaGate(filters: try focusFilters(), criteria: live.criteria))
        return try session.suggest(at: date, utcOffset: utcOffset, context: context, k: k, developerMode: developerMode)
    }

    /// What ranking needs for one user: the live model, the apps' declarations, feedback and Focus filters.
    public func rankingSession(user: String, _ choice: ModelChoice = ModelChoice(), now: Date = Date()) throws -> RankingSession {
        let live = try liveModel(user: user, choice, now: now)
        let (declarations, feedback) = try declarations(user: user)
        let gate = FocusCriteriaGate(filters: try focusFilters(), criteria: live.criteria)
        return RankingSession(engine: self, live: live, declarations: declarations, feedback: feedback, gate: gate)
    }

    // MARK: Declarations, feedback and Focus filters

    /// The user's relevant shortcuts and timelines the acting party may see, and the user's feedback.
    /// A row that no longer decodes is skipped and told to `skippedStoredData`.
    public func declarations(user: String) throws -> (Declarations, [FeedbackEvent]) {
        let base = storage.declarations
        let declarations = try Self.declarations(AppScopedDeclarationStore(base, access: .administrator), user: user, skipped: skippedStoredData)
        var feedback: [FeedbackEvent] = []
        for stored in try base.feedback(user: user) {
            do { feedback.append(try FeedbackCodec.decode(stored.eventJSON)) } catch {
                skippedStoredData("stored feedback \(stored.kind) \(stored.scope) skipped: \(error)")
            }
        }
        return (declarations, feedback)
    }

    /// The user's relevant shortcuts and timelines that `store`'s acting party may see, decoded.
    /// A stored set or timeline the codecs refuse is skipped and told to `skipped`.
    public static func declarations(_ store: AppScopedDeclarationStore, user: String,
                                    skipped: (String) -> Void = { _ in }) throws -> Declarations {
        var declarations = Declarations()
        for stored in try store.shortcutSets(user: user) {
            do {
                declarations.shortcuts.replace(try RelevantShortcutCodec.decode(stored.shortcutsJSON, app: stored.app, declaredAt: stored.declaredAt))
            } catch {
                skipped("stored relevant shortcuts of \(stored.app) skipped: \(error)")
            }
        }
        for stored in try store.timelines(user: user) {
            do {
                for timeline in try WidgetTimelineCodec.decode(stored.timelineJSON) { declarations.timelines.replace(timeline) }
            } catch {
                skipped("stored timeline of \(stored.widget) skipped: \(error)")
            }
        }
        return declarations
    }

    /// Every app's declared Focus filter with its configured values and app contexts
    /// (only the acting app's in app mode).
    public func focusFilters() throws -> FocusFilterEngine {
        var engine = FocusFilterEngine()
        for stored in try AppScopedFocusStore(storage.focus, access: access).visibleFilters() {
            let filter: FocusFilter
            do { filter = try FocusFilter.parse(stored.declaration, app: stored.app) } catch {
                throw EngineError(.unreadableStoredData, "the stored Focus filter of \(stored.app) is unreadable: \(error)")
            }
            engine.declare(filter)
            for (focus, values) in stored.values { try engine.replaceConfiguration(app: stored.app, focus: focus, values: values) }
            for context in stored.contexts {
                let predicate = try context.filterPredicate.map { text throws(FocusError) in try FilterPredicate(parsing: text) }
                try engine.setAppContext(app: stored.app, focus: context.focus, AppContext(filterPredicate: predicate, badgeCount: context.badgeCount))
            }
        }
        return engine
    }

    // MARK: Writes

    /// Stores one donation as the acting party (Focus filled from the
    /// timeline) and returns it as stored. The saved state learns it on its next
    /// read (the stored row is the delta): `liveModel` folds it in.
    /// - Throws: a donation already stored is an error value, never a trap: `StoreError` with code
    ///   `.duplicateDonation` (every field equal) or `.duplicateIdentifier` (the app's identifier is
    ///   taken), and nothing is stored; `donate(_:duplicates: .skip)` ignores it instead, as `import`
    ///   does. Also `StoreError` for another app's donation in app mode, a paused store, ...
    ///
    /// ```swift
    /// do { try engine.donate(donation) } catch let error as StoreError where error.code == .duplicateDonation {
    ///     print("already stored")
    /// }
    /// ```
    @discardableResult
    public func donate(_ donation: Donation) throws -> Donation {
        let enriched = try focusTimeline().timeline.enrich(donation)
        try AppScopedDonationStore(donations, access: access).append(enriched, duplicates: .fail)
        return enriched
    }

    /// Stores one donation as `donate(_:)` does, with a choice for one already stored (the same
    /// donation, every field equal, or the app's identifier taken): `.skip` ignores it, as `import`
    /// does, so that code run twice on one store (an example, a replayed log) stores each donation
    /// once; `.fail` throws as `donate(_:)` does.
    /// - Returns: the donation as stored, or nil when `.skip` ignored it as already stored.
    /// - Throws: `StoreError` as `donate(_:)` (the duplicate errors only with `.fail`).
    ///
    /// ```swift
    /// try engine.donate(donation, duplicates: .skip)   // the donation as stored
    /// try engine.donate(donation, duplicates: .skip)   // nil: already stored, nothing thrown
    /// ```
    @discardableResult
    public func donate(_ donation: Donation, duplicates: DuplicatePolicy) throws -> Donation? {
        let enriched = try focusTimeline().timeline.enrich(donation)
        let result = try AppScopedDonationStore(donations, access: access).append(enriched, duplicates: duplicates)
        return result.inserted > 0 ? enriched : nil
    }

    /// Deletes donations as the acting party, then finishes the erasure (`finishErasure`): every saved
    /// state unlearns them and no page of the store's files keeps their bytes.
    /// - Returns: how many were deleted.
    /// - Throws: `StoreError(.accessDenied)` for another app's donations under an app's access; store failures.
    @discardableResult
    public func delete(_ deletion: DonationDeletion, now: Date = Date()) throws -> Int {
        let count = try AppScopedDonationStore(donations, access: access).delete(deletion)
        if count > 0 { try finishErasure(now: now) }
        return count
    }

    /// What must follow every deletion of donations, in this order: saved states unlearn them (their
    /// erasure-journal entries go with that), then the write-ahead log is checkpointed and truncated,
    /// so that no older copy of a page keeps their bytes. (Erasing traces before settling would leave
    /// the journal's copies in the file.) A process holding models in memory must also drop them:
    /// `LiveModelCache` does so when it sees the erasure.
    /// - Returns: false when another connection kept the log from being truncated (its old pages go at
    ///   the next checkpoint; `proactive compact` forces one).
    @discardableResult
    public func finishErasure(now: Date = Date()) throws -> Bool {
        try settleDeletions(now: now)
        return try storage.privacy.eraseTraces()
    }

    /// Erases the donations and feedback the retention policy no longer keeps at `now`, then finishes
    /// the erasure as `delete` does. `bulk` false skips tuning the connection for a large erasure (for a
    /// caller that applies it often, such as the service after a batch).
    /// - Returns: what was erased (empty when the policy keeps everything or nothing had expired).
    @discardableResult
    public func applyRetention(now: Date, bulk: Bool = true) throws -> RetentionReport {
        let report = try storage.privacy.applyRetention(now: now, bulk: bulk)
        if !report.isEmpty { try finishErasure(now: now) }
        return report
    }
}

// MARK: - Results

/// What `predict` returns.
public struct Prediction: Sendable {
    public struct Row: Sendable {
        public var target: TargetKey
        /// The target as a person reads it: the definition's summary ("Order a latte"), else the intent and its parameters.
        public var summary: String
        /// P(target | the user acts now), 0...1; the rows of one prediction sum to at most 1.
        public var probability: Double
        /// Up to three reasons the model ranks the target here, strongest first, each a phrase for a
        /// person such as "usually 07:00-08:00", "on weekdays", "when focus=work" or "after Order a
        /// latte" (`Reason.text`); empty for a model that cannot explain itself. The same name and
        /// type as a suggestion's `why`, and as `why` in the JSON answers (`predict --json`, the service).
        public var why: [String]

        /// The former name of `why`.
        @available(*, deprecated, renamed: "why")
        public var reasons: [String] { why }
    }

    public var user: String
    public var model: String
    public var moment: Moment
    /// The targets ranked, most probable first: `suggestions` as in the JSON answers (`predict --json`,
    /// `POST /v1/predict`).
    public var suggestions: [Row]

    /// The former name of `suggestions`.
    @available(*, deprecated, renamed: "suggestions")
    public var rows: [Row] { suggestions }

    /// How likely the user is to act at all at the moment (0...1, 1 at usual times), when the
    /// model knows; the probabilities are conditional on acting (see `ActiveNowModel`).
    public var activity: Double?
    /// What loading the model did (fitted, caught up), for a person.
    public var notes: [String]
}

/// What `suggest` returns.
public struct SuggestionResult: Sendable {
    public var moment: Moment
    public var model: String
    public var suggestions: [Suggestion]
    /// The model's probabilities at the moment (the same `predict` gives), conditional on the user acting.
    public var distribution: TargetDistribution
    /// The activity level the suggestions' model evidence was multiplied by (1 when the model has none).
    public var activity: Double
    public var notes: [String]
}
