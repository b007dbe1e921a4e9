import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveModels
import ProactiveRanking
import ProactiveStore

// MARK: - Options shared by suggest and stack

/// `--user`, `--definitions`, `--timezone`, `--model`, `--context`, `--developer`.
struct RankingOptions: ParsableArguments {
    @Option(help: "Whose history and declarations.")
    var user: String = Donation.defaultUser

    @Option(help: "Intent definitions (JSON) overlaying the stored ones: which donations are the same target, which intents configure widgets.")
    var definitions: String?

    @Option(name: .customLong("timezone"), help: "Read local times in this IANA zone (default: the user's configured zone, else the offsets in the log).")
    var timeZoneName: String?

    @Option(help: "The model (default: \(ModelRegistry.builtIn.defaultName); known: \(ModelRegistry.builtIn.names.joined(separator: ", "))).")
    var model: String?

    @Option(name: .customLong("context"), help: ArgumentHelp("Context of the moment, such as focus=work (repeatable).", valueName: "key=value"))
    var contextValues: [String] = []

    @Flag(help: "Developer mode: lift the confidence floors and rate limits, list every candidate with its score.")
    var developer = false

    func validate() throws {
        if let model, ModelRegistry.builtIn.entry(named: model) == nil {
            throw ValidationError("--model: unknown model \"\(model)\"; known: \(ModelRegistry.builtIn.names.joined(separator: ", "))")
        }
        _ = try parseTimeZone(timeZoneName)
        _ = try context()
    }

    func context() throws -> [String: String] {
        var context: [String: String] = [:]
        for setting in contextValues {
            let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else { throw ValidationError("--context wants KEY=VALUE, found \"\(setting)\"") }
            guard context[parts[0]] == nil else { throw ValidationError("--context \(parts[0]) is given twice") }
            context[parts[0]] = parts[1]
        }
        return context
    }
}

// MARK: - Everything ranking needs for one user

/// One user's history before a cutoff, the fitted model, the apps'
/// declarations and the user's feedback, loaded from the store.
struct RankingSession {
    let user: String
    let zone: TimeZone?
    /// The offset used when no zone is known: the user's latest donation's.
    let fallbackOffset: Int
    let resolver: TargetResolver
    let training: TrainingSet
    let model: any FittedModel
    let declarations: Declarations
    let feedback: [FeedbackEvent]
    /// Which Focus was on when (donations and moments without `focus` get it) and the apps' Focus filters as the ranking's gate.
    let focus: (timeline: FocusTimeline, gate: FocusCriteriaGate)

    /// - Parameter cutoff: only donations strictly before it are learned from.
    static func load(store: StoreOptions, options: RankingOptions, before cutoff: Date) throws -> RankingSession {
        try load(store: store, options: options) { _ in cutoff }
    }

    /// - Parameter cutoff: computes the cutoff from the user's clock (the UTC offset at an instant).
    static func load(store: StoreOptions, options: RankingOptions, cutoff: (_ offsetAt: (Date) -> Int) -> Date) throws -> RankingSession {
        let database = try store.openDatabase(.mustExist)
        let donationStore = SQLiteDonationStore(database: database)
        let zoneName = try options.timeZoneName ?? donationStore.timeZone(forUser: options.user)
        let zone = try parseTimeZone(zoneName)
        let focusSession = FocusSession(database: database)
        let timeline = try focusSession.timeline().timeline
        var donations = try donationStore.donations(forUser: options.user, in: .all).map(timeline.enrich)
        if let zone { donations = donations.map { var copy = $0; copy.utcOffset = zone.secondsFromGMT(for: $0.date); return copy } }
        let fallbackOffset = donations.last?.utcOffset ?? 0
        let end = cutoff { zone?.secondsFromGMT(for: $0) ?? fallbackOffset }
        donations = donations.filter { $0.date < end }
        guard !donations.isEmpty else {
            throw CommandFailure(description: "user \(options.user) has no donations before \(Timestamp.format(secondsSince1970: end.timeIntervalSince1970, utcOffsetSeconds: 0)) in \(store.path)")
        }
        let resolver = TargetResolver(definitions: try focusSession.definitions(file: options.definitions))
        let training = TrainingSet(donations: donations, resolver: resolver)
        let focus = (timeline: timeline, gate: FocusCriteriaGate(filters: try focusSession.engine(), criteria: TargetCriteria(donations: donations, resolver: resolver)))
        let entry = ModelRegistry.builtIn.entry(named: options.model ?? ModelRegistry.builtIn.defaultName)!
        let model: any FittedModel
        do { model = try entry.fit(training) } catch {
            throw CommandFailure(description: "the \(entry.name) model could not be fitted for user \(options.user): \(error)")
        }
        let (declarations, feedback) = try DeclarationLoading.load(SQLiteDeclarationStore(database: database), user: options.user)
        return RankingSession(user: options.user, zone: zone, fallbackOffset: fallbackOffset, resolver: resolver,
                              training: training, model: model, declarations: declarations, feedback: feedback, focus: focus)
    }

    func offset(at date: Date) -> Int { zone?.secondsFromGMT(for: date) ?? fallbackOffset }

    var clock: LocalClock { LocalClock(timeZone: zone) }

    /// The ranker, with "new content" timed by the model's hours on the day starting at `dayStart`.
    func ranker(configuration: FusionConfiguration = .standard, dayStart: Date, context: [String: String]) -> Ranker {
        let newContentApps = Set(declarations.shortcuts.shortcuts.filter { $0.shortcut.isNewContent }.map(\.shortcut.app))
        let usage = newContentApps.isEmpty ? nil
            : AppUsageProfile.sample(model, apps: newContentApps, dayStart: dayStart, utcOffset: offset(at: dayStart), context: context)
        return Ranker(configuration: configuration, declarations: declarations, feedback: FeedbackIndex(feedback), targets: training.targets,
                      resolver: resolver, usage: usage, clock: clock, focusGate: focus.gate)
    }

    /// The last `count` events before `date` (the moment's recent history).
    func recent(before date: Date, count: Int = 16) -> [Event] {
        Array(training.events.filter { $0.date < date }.suffix(count))
    }

    /// Local midnight of `date`'s day.
    func dayStart(containing date: Date) -> Date {
        let reading = clock.read(date, writtenOffset: offset(at: date))
        return date.addingTimeInterval(-reading.minuteOfDay * 60)
    }

    // MARK: Widgets by name

    /// Every widget the user's declarations and intent definitions know, sorted.
    func widgetCatalogue(_ ranker: Ranker) -> [WidgetID] {
        Set(ranker.suggestibleWidgets + declarations.widgets).sorted()
    }

    func resolveWidget(_ name: String, in catalogue: [WidgetID], ranker: Ranker) throws -> WidgetID {
        try ProactiveCLI.resolveWidget(name, in: catalogue, history: training.events, ranker: ranker)
    }
}

/// The widget a command-line name designates: a full key, a kind, the kind's
/// last component, or the app's last component. Among several configurations
/// of the matching kind, the one whose intent the user donated most wins (then the first key).
func resolveWidget(_ name: String, in catalogue: [WidgetID], history: [Event], ranker: Ranker) throws -> WidgetID {
    var matches = catalogue.filter { $0.matches(name: name) }
    if matches.isEmpty {
        matches = catalogue.filter { $0.app.split(separator: ".").last.map { $0.lowercased() == name.lowercased() } ?? false }
    }
    guard !matches.isEmpty else {
        let known = catalogue.map(\.key).joined(separator: "\n  ")
        throw CommandFailure(description: "no widget named \"\(name)\"; known widgets:\n  \(known.isEmpty ? "(none: declare shortcuts or timelines, or pass --definitions)" : known)")
    }
    var uses: [TargetKey: Double] = [:]
    for event in history { uses[event.target, default: 0] += event.weight }
    func count(_ widget: WidgetID) -> Double { ranker.configurationTarget(of: widget).flatMap { uses[$0] } ?? 0 }
    return matches.min { count($0) != count($1) ? count($0) > count($1) : $0 < $1 }!
}

// MARK: - Declarations from the store

enum DeclarationLoading {
    /// The user's declarations and feedback, decoded with the ranking codecs.
    static func load(_ store: SQLiteDeclarationStore, user: String) throws -> (Declarations, [FeedbackEvent]) {
        let declarations = try self.declarations(AppScopedDeclarationStore(store, access: .administrator), user: user)
        var feedback: [FeedbackEvent] = []
        for stored in try store.feedback(user: user) {
            do { feedback.append(try FeedbackCodec.decode(stored.eventJSON)) } catch {
                printError("warning: stored feedback \(stored.kind) \(stored.scope) skipped: \(error)")
            }
        }
        return (declarations, feedback)
    }

    /// The user's relevant shortcuts and timelines that the store's acting party may see.
    /// A stored declaration the codecs refuse (written before a rule existed) is
    /// skipped and named on standard error: one app's bad declaration must not
    /// take down every other app's suggestions.
    static func declarations(_ store: AppScopedDeclarationStore, user: String,
                             report: (String) -> Void = { printError("warning: \($0)") }) throws -> Declarations {
        var declarations = Declarations()
        for stored in try store.shortcutSets(user: user) {
            do {
                declarations.shortcuts.replace(try RelevantShortcutCodec.decode(stored.shortcutsJSON, app: stored.app, declaredAt: stored.declaredAt))
            } catch {
                report("stored relevant shortcuts of \(stored.app) skipped: \(error)")
            }
        }
        for stored in try store.timelines(user: user) {
            do {
                for timeline in try WidgetTimelineCodec.decode(stored.timelineJSON) { declarations.timelines.replace(timeline) }
            } catch {
                report("stored timeline of \(stored.widget) skipped: \(error)")
            }
        }
        return declarations
    }

    /// The stored form of a feedback event.
    static func stored(_ event: FeedbackEvent, user: String, utcOffset: Int) -> StoredFeedback {
        StoredFeedback(user: user, date: event.date, kind: event.kind.rawValue, scope: event.scope.description, app: event.app,
                       eventJSON: FeedbackCodec.encode(event, utcOffset: utcOffset))
    }
}

/// Reads a whole text file, naming it in the error.
func readTextFile(_ path: String) throws -> String {
    do {
        return try String(contentsOfFile: path, encoding: .utf8)
    } catch {
        throw CommandFailure(description: "\(path): cannot be read (\(error.localizedDescription))")
    }
}

/// `HH:MM` on the session's clock.
func clockText(_ date: Date, _ session: RankingSession) -> String {
    RelevanceSignals.clock(date, session.offset(at: date))
}
