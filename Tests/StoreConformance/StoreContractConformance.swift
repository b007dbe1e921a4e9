import Foundation
import ProactiveCore
import ProactiveStore
import Testing

// MARK: - Every part of one store

/// The parts of one empty store (StoreProtocols.swift), all on the same database, and two reads
/// behind their back, for the contract checks below.
public struct StoreParts: Sendable {
    public let donations: any DonationStore
    public let definitions: any IntentDefinitionStore
    public let declarations: any DeclarationStore
    public let focus: any FocusStore
    public let privacy: any PrivacyStore
    public let states: any ModelStateStore
    /// The number of rows of a table whose `user` column is the given user.
    public let rowsOfUser: @Sendable (_ table: String, _ user: String) throws -> Int
    /// Every table with a `user` column.
    public let tablesWithUser: @Sendable () throws -> [String]

    public init(donations: any DonationStore, definitions: any IntentDefinitionStore, declarations: any DeclarationStore,
                focus: any FocusStore, privacy: any PrivacyStore, states: any ModelStateStore,
                rowsOfUser: @escaping @Sendable (String, String) throws -> Int, tablesWithUser: @escaping @Sendable () throws -> [String]) {
        self.donations = donations
        self.definitions = definitions
        self.declarations = declarations
        self.focus = focus
        self.privacy = privacy
        self.states = states
        self.rowsOfUser = rowsOfUser
        self.tablesWithUser = tablesWithUser
    }
}

/// The contracts of `IntentDefinitionStore`, `DeclarationStore`, `FocusStore` and `PrivacyStore` as
/// checks on an empty store, run by each implementation's tests (ProactiveStoreTests: SQLite;
/// ProactivePostgresTests: PostgreSQL): the same constraints, refusals, order and erasure.
///
/// ```swift
/// @Test(arguments: StoreContractConformance.checks)
/// func conformance(check: StoreContractConformance.Check) throws { try check.run(makeEmptyStoreParts()) }
/// ```
public enum StoreContractConformance {
    public typealias Check = ConformanceCheck<StoreParts>

    public static let checks: [Check] = [
        Check(name: "definitionsAreReplacedPerAppAndCheckedFirst", run: definitionsAreReplacedPerAppAndCheckedFirst),
        Check(name: "shortcutSetsAreReplacedWholeAndWithdrawn", run: shortcutSetsAreReplacedWholeAndWithdrawn),
        Check(name: "timelinesBelongToTheirAppAndGoWithoutEntries", run: timelinesBelongToTheirAppAndGoWithoutEntries),
        Check(name: "feedbackIsOrderedAndItsConstraintsRefuseTheBatch", run: feedbackIsOrderedAndItsConstraintsRefuseTheBatch),
        Check(name: "focusSchedulesAndChanges", run: focusSchedulesAndChanges),
        Check(name: "focusFiltersOwnTheirValuesAndContexts", run: focusFiltersOwnTheirValuesAndContexts),
        Check(name: "pausingRefusesDonationsAndFeedback", run: pausingRefusesDonationsAndFeedback),
        Check(name: "retentionWindowsAreValidatedAndApplied", run: retentionWindowsAreValidatedAndApplied),
        Check(name: "forgetErasesEveryTableOfTheUserOnly", run: forgetErasesEveryTableOfTheUserOnly),
        Check(name: "forgetOneAppErasesItsRowsOfTheUserOnly", run: forgetOneAppErasesItsRowsOfTheUserOnly),
        Check(name: "physicalErasureRuns", run: physicalErasureRuns),
    ]

    static let day = Date(timeIntervalSince1970: sampleDay)

    static func tap(_ user: String = "u1", app: String = "com.example.weather", minutes: Double = 0, n: Int = 0,
                    kind: String = "tap", scope: String? = nil) -> StoredFeedback {
        StoredFeedback(user: user, date: day.addingTimeInterval(minutes * 60), kind: kind, scope: scope ?? "target:\(app):open",
                       app: app, eventJSON: "{\"n\":\(n)}")
    }

    // MARK: Definitions

    public static func definitionsAreReplacedPerAppAndCheckedFirst(_ parts: StoreParts) throws {
        let definitions = parts.definitions
        let legacy = IntentDefinition(app: "com.example.coffee", name: "LegacyOrderCoffeeIntent",
                                      parameters: [ParameterDefinition(name: "item", type: .string)],
                                      combinations: [ParameterCombination(parameters: ["item"], summary: "Order ${item}")])
        let weather = IntentDefinition(app: "com.example.weather", name: "CheckWeatherIntent", widgetKind: "forecast")
        try definitions.replace(with: [legacy, weather], apps: ["com.example.coffee", "com.example.weather"])
        #expect(try definitions.all() == [legacy, weather])
        var migrated = legacy
        migrated.name = "OrderCoffeeIntent"
        migrated.migratesFrom = "LegacyOrderCoffeeIntent"
        try definitions.replace(with: [migrated, weather], apps: ["com.example.coffee"])
        #expect(try definitions.all() == [migrated, weather], "other apps are untouched")
        let resolver = TargetResolver(definitions: try IntentDefinitionSet(definitions.all()))
        #expect(resolver.target(app: "com.example.coffee", intent: "LegacyOrderCoffeeIntent", parameters: ["item": .string("latte")]).intent
            == "OrderCoffeeIntent")
        #expect(storeError { try definitions.replace(with: [migrated, migrated], apps: ["com.example.coffee"]) }?.code == .invalidRequest)
        var twice = weather
        twice.name = "Other"
        twice.migratesFrom = "Old"
        var again = twice
        again.name = "Another"
        #expect(storeError { try definitions.replace(with: [twice, again], apps: ["com.example.weather"]) }?.code == .invalidRequest)
        #expect(try definitions.all() == [migrated, weather], "a refused replacement writes nothing")
        try definitions.replace(with: [], apps: ["com.example.coffee"])
        #expect(try definitions.all() == [weather])
    }

    // MARK: Declarations

    public static func shortcutSetsAreReplacedWholeAndWithdrawn(_ parts: StoreParts) throws {
        let declarations = parts.declarations
        let set = StoredShortcutSet(user: "u1", app: "com.b", declaredAt: day, shortcutsJSON: #"[{"intent":"x"}]"#)
        try declarations.replaceShortcutSet(set)
        try declarations.replaceShortcutSet(StoredShortcutSet(user: "u1", app: "com.a", declaredAt: day, shortcutsJSON: "[1]"))
        #expect(try declarations.shortcutSets(user: "u1").map(\.app) == ["com.a", "com.b"])
        #expect(try declarations.shortcutSets(user: "u1").last == set)
        try declarations.replaceShortcutSet(StoredShortcutSet(user: "u1", app: "com.a", declaredAt: day, shortcutsJSON: "[]"))
        #expect(try declarations.shortcutSets(user: "u1") == [set])
        #expect(try declarations.shortcutSets(user: "u2").isEmpty)
        for bad in ["{}", "not json"] {
            #expect(storeError { try declarations.replaceShortcutSet(StoredShortcutSet(user: "u1", app: "com.b", declaredAt: day, shortcutsJSON: bad)) }?
                .code == .database, "\(bad) breaks a CHECK")
        }
        #expect(try declarations.shortcutSets(user: "u1") == [set], "a refused set leaves the old one")
    }

    public static func timelinesBelongToTheirAppAndGoWithoutEntries(_ parts: StoreParts) throws {
        let declarations = parts.declarations
        let timeline = StoredTimeline(user: "u1", widget: "com.a/forecast", app: "com.a", timelineJSON: #"{"entries":[{"n":1}]}"#)
        try declarations.replaceTimeline(timeline)
        #expect(try declarations.timelines(user: "u1") == [timeline])
        for (widget, app) in [("com.b/forecast", "com.a"), ("com.a/", "com.a"), ("com.a/x", "com.a/x")] {
            #expect(storeError { try declarations.replaceTimeline(StoredTimeline(user: "u1", widget: widget, app: app, timelineJSON: #"{"entries":[]}"#)) }?
                .code == .invalidRequest, "\(widget) of \(app)")
        }
        #expect(storeError { try declarations.replaceTimeline(StoredTimeline(user: "u1", widget: "com.a/w", app: "com.a", timelineJSON: "[]")) }?
            .code == .database)
        try declarations.replaceTimeline(StoredTimeline(user: "u1", widget: "com.a/forecast", app: "com.a", timelineJSON: #"{"entries":[]}"#))
        #expect(try declarations.timelines(user: "u1").isEmpty)
    }

    public static func feedbackIsOrderedAndItsConstraintsRefuseTheBatch(_ parts: StoreParts) throws {
        let declarations = parts.declarations
        try declarations.appendFeedback([tap(minutes: 1, n: 1), tap(n: 2, kind: "dismiss"), tap(n: 3, kind: "never", scope: "app:com.example.weather"),
                                         tap("u2", n: 4)])
        #expect(try declarations.feedback(user: "u1").map(\.eventJSON) == [#"{"n":2}"#, #"{"n":3}"#, #"{"n":1}"#])
        #expect(try declarations.feedback(user: "u1").first == tap(n: 2, kind: "dismiss"))
        for bad in [tap(kind: "like"), tap(scope: "elsewhere"), tap(kind: "tap", scope: "app:com.example.weather"), tap(""),
                    StoredFeedback(user: "u1", date: day, kind: "tap", scope: "target:x", app: "a", eventJSON: "[]")] {
            #expect(storeError { try declarations.appendFeedback([tap(n: 9), bad]) }?.code == .database, "\(bad)")
        }
        #expect(try declarations.feedback(user: "u1").count == 3, "a refused batch stores nothing")
    }

    // MARK: Focus

    public static func focusSchedulesAndChanges(_ parts: StoreParts) throws {
        let focus = parts.focus
        let work = StoredFocusSchedule(focus: "work", weekdays: [1, 2, 3, 4, 5], startMinute: 540, endMinute: 1020, timeZone: "Europe/Paris")
        let first = try focus.addSchedule(work)
        let second = try focus.addSchedule(StoredFocusSchedule(focus: "sleep", weekdays: [0, 6], startMinute: 1380, endMinute: 420, timeZone: "UTC"))
        #expect(second > first)
        var stored = work
        stored.id = first
        #expect(try focus.schedules().first == stored)
        for bad in [StoredFocusSchedule(focus: "work", weekdays: [], startMinute: 0, endMinute: 1, timeZone: "UTC"),
                    StoredFocusSchedule(focus: "Work", weekdays: [1], startMinute: 0, endMinute: 1, timeZone: "UTC"),
                    StoredFocusSchedule(focus: "work", weekdays: [1], startMinute: 0, endMinute: 1440, timeZone: "UTC")] {
            #expect(storeError { try focus.addSchedule(bad) }?.code == .database, "\(bad)")
        }
        #expect(try focus.removeSchedule(id: first))
        #expect(try !focus.removeSchedule(id: first))
        #expect(try focus.schedules().map(\.focus) == ["sleep"])

        let changes = [StoredFocusChange(date: day.addingTimeInterval(60), focus: "personal"), StoredFocusChange(date: day, focus: "work"),
                       StoredFocusChange(date: day, focus: nil)]
        for change in changes { try focus.recordChange(change) }
        #expect(try focus.changes() == [changes[1], changes[2], changes[0]])
        #expect(storeError { try focus.recordChange(StoredFocusChange(date: day, focus: " work")) }?.code == .database)
    }

    public static func focusFiltersOwnTheirValuesAndContexts(_ parts: StoreParts) throws {
        let focus = parts.focus
        let account: ParameterValue = .entity(id: "personal", display: "Personal")
        #expect(storeError { try focus.replaceValues(app: "com.mail", focus: "work", ["account": account]) }?.code == .invalidRequest)
        #expect(storeError { try focus.setAppContext(StoredAppContext(app: "com.mail", focus: "work", filterPredicate: "p", badgeCount: 1)) }?
            .code == .invalidRequest)
        try focus.declareFilter(app: "com.mail", declaration: #"{"parameters":[]}"#, keeping: ["personal": ["account": account]])
        try focus.declareFilter(app: "com.chat", declaration: "{}")
        try focus.replaceValues(app: "com.mail", focus: "work", ["account": .string("work"), "muted": .bool(true)])
        try focus.setAppContext(StoredAppContext(app: "com.mail", focus: "work", filterPredicate: nil, badgeCount: 3))
        try focus.setAppContext(StoredAppContext(app: "com.mail", focus: "personal", filterPredicate: "inbox", badgeCount: nil))
        let mail = StoredFocusFilter(app: "com.mail", declaration: #"{"parameters":[]}"#,
                                     values: ["personal": ["account": account], "work": ["account": .string("work"), "muted": .bool(true)]],
                                     contexts: [StoredAppContext(app: "com.mail", focus: "personal", filterPredicate: "inbox", badgeCount: nil),
                                                StoredAppContext(app: "com.mail", focus: "work", filterPredicate: nil, badgeCount: 3)])
        #expect(try focus.filter(app: "com.mail") == mail)
        #expect(try focus.allFilters().map(\.app) == ["com.chat", "com.mail"])
        #expect(storeError { try focus.setAppContext(StoredAppContext(app: "com.mail", focus: "work", filterPredicate: nil, badgeCount: -1)) }?
            .code == .database)
        #expect(storeError { try focus.declareFilter(app: "com.chat", declaration: "[]") }?.code == .database)
        try focus.setAppContext(StoredAppContext(app: "com.mail", focus: "work", filterPredicate: nil, badgeCount: nil))
        #expect(try focus.filter(app: "com.mail")?.contexts.map(\.focus) == ["personal"], "an empty context is removed")
        try focus.declareFilter(app: "com.mail", declaration: "{}", keeping: [:])
        #expect(try focus.filter(app: "com.mail")?.values.isEmpty == true, "re-declaring keeps only the given values")
        #expect(try focus.removeFilter(app: "com.mail"))
        #expect(try !focus.removeFilter(app: "com.mail"))
        #expect(try focus.filter(app: "com.mail") == nil)
        try focus.declareFilter(app: "com.mail", declaration: "{}")
        #expect(try focus.filter(app: "com.mail") == StoredFocusFilter(app: "com.mail", declaration: "{}"), "values and contexts went with it")
    }

    // MARK: Privacy

    public static func pausingRefusesDonationsAndFeedback(_ parts: StoreParts) throws {
        let privacy = parts.privacy
        #expect(try !privacy.isRecordingPaused())
        #expect(try privacy.pausedSince() == nil)
        try parts.donations.append([sample()], duplicates: .fail)
        try privacy.setRecordingPaused(true, at: day)
        #expect(try privacy.isRecordingPaused())
        #expect(try privacy.pausedSince() == day)
        #expect(storeError { try parts.donations.append([sample(minutes: 1)], duplicates: .fail) }?.code == .recordingPaused)
        #expect(storeError { try parts.declarations.appendFeedback([tap()]) }?.code == .recordingPaused)
        #expect(try parts.donations.donations(forUser: "u1", in: .all).count == 1, "nothing stored is deleted")
        #expect(try parts.declarations.feedback(user: "u1").isEmpty)
        try privacy.setRecordingPaused(false, at: day)
        #expect(try privacy.pausedSince() == nil)
        try parts.declarations.appendFeedback([tap()])
        #expect(try parts.declarations.feedback(user: "u1").count == 1)
    }

    public static func retentionWindowsAreValidatedAndApplied(_ parts: StoreParts) throws {
        let privacy = parts.privacy
        let now = day.addingTimeInterval(30 * 86_400)
        #expect(try privacy.retentionPolicy() == RetentionPolicy())
        #expect(try privacy.applyRetention(now: now) == RetentionReport(), "a policy that keeps everything erases nothing")
        #expect(storeError { try privacy.setRetention(.days(0)) }?.code == .invalidRequest)
        #expect(storeError { try privacy.setRetention(.days(36_501), app: "com.a") }?.code == .invalidRequest)
        #expect(storeError { try privacy.setRetention(.days(7), app: "") }?.code == .invalidRequest)
        try privacy.setRetention(.days(7), app: "com.health")
        try privacy.setRetention(.keepAll, app: "com.keep")
        try privacy.setRetention(.days(60))
        #expect(try privacy.retentionPolicy() == RetentionPolicy(defaultWindow: .days(60), byApp: ["com.health": .days(7), "com.keep": .keepAll]))
        #expect(try privacy.clearRetention(app: "com.keep"))
        #expect(try !privacy.clearRetention(app: "com.keep"))
        try privacy.setRetention(.days(20))

        try parts.donations.append([sample(app: "com.health", identifier: "h-old"), sample(app: "com.health", minutes: 29 * 1440, identifier: "h-new"),
                                    sample(app: "com.mail", identifier: "m-old"), sample(app: "com.mail", minutes: 15 * 1440, identifier: "m-new"),
                                    sample(user: "u2", app: "com.mail", identifier: "m-old-2")], duplicates: .fail)
        try parts.declarations.appendFeedback([tap(app: "com.health"), tap(app: "com.health", minutes: 29 * 1440), tap(app: "com.mail", kind: "never", scope: "app:com.mail")])
        let report = try privacy.applyRetention(now: now, bulk: false)
        #expect(report.donationsByApp == ["com.health": 1, "com.mail": 2])
        #expect(report.feedback == 2)
        #expect(try parts.donations.all().compactMap(\.identifier).sorted() == ["h-new", "m-new"])
        #expect(try parts.declarations.feedback(user: "u1").map(\.app) == ["com.health"])
        #expect(try privacy.applyRetention(now: now) == RetentionReport(), "applying it again erases nothing")
    }

    /// `forget(user:app:)`: the app's donations, feedback, shortcuts and timelines of the user go in one
    /// transaction; the user's other apps, other users and the user's settings and saved models stay.
    public static func forgetOneAppErasesItsRowsOfTheUserOnly(_ parts: StoreParts) throws {
        #expect(storeError { _ = try parts.privacy.forget(user: "u1", app: "") }?.code == .invalidRequest)
        for user in ["u1", "u2"] {
            for app in ["com.a", "com.b"] {
                try parts.donations.append([sample(user: user, app: app, identifier: "\(user)-\(app)")], duplicates: .fail)
                try parts.declarations.appendFeedback([tap(user, app: app)])
                try parts.declarations.replaceShortcutSet(StoredShortcutSet(user: user, app: app, declaredAt: day, shortcutsJSON: "[1]"))
                try parts.declarations.replaceTimeline(StoredTimeline(user: user, widget: "\(app)/w", app: app, timelineJSON: #"{"entries":[1]}"#))
            }
            try parts.donations.setTimeZone("Europe/Paris", forUser: user)
        }
        let counts = try parts.privacy.forget(user: "u1", app: "com.a")
        #expect(counts == ["donation": 1, "feedback": 1, "relevant_shortcut_set": 1, "widget_timeline": 1])
        #expect(try parts.donations.all().map { "\($0.user) \($0.app)" }.sorted() == ["u1 com.b", "u2 com.a", "u2 com.b"])
        #expect(try parts.declarations.feedback(user: "u1").map(\.app) == ["com.b"])
        #expect(try parts.declarations.shortcutSets(user: "u1").map(\.app) == ["com.b"])
        #expect(try parts.declarations.timelines(user: "u1").map(\.app) == ["com.b"])
        #expect(try parts.declarations.shortcutSets(user: "u2").count == 2)
        #expect(try parts.donations.timeZone(forUser: "u1") == "Europe/Paris")
        #expect(try parts.privacy.forget(user: "u1", app: "com.a").isEmpty)
    }

    public static func forgetErasesEveryTableOfTheUserOnly(_ parts: StoreParts) throws {
        #expect(storeError { _ = try parts.privacy.forget(user: "") }?.code == .invalidRequest)
        for user in ["u1", "u2"] {
            try parts.donations.append([sample(user: user, identifier: "\(user)-a"), sample(user: user, minutes: 1, identifier: "\(user)-b")], duplicates: .fail)
            try parts.donations.setTimeZone("Europe/Paris", forUser: user)
            try parts.declarations.appendFeedback([tap(user)])
            try parts.declarations.replaceShortcutSet(StoredShortcutSet(user: user, app: "com.a", declaredAt: day, shortcutsJSON: "[1]"))
            try parts.declarations.replaceTimeline(StoredTimeline(user: user, widget: "com.a/w", app: "com.a", timelineJSON: #"{"entries":[1]}"#))
            let (_, high, mark) = try parts.states.snapshot(ofUser: user)
            #expect(try parts.states.save(ModelStateStoreConformance.state(user, [1], high: high, erased: mark, count: 2, heavy: [2])))
        }
        // A journal entry for u1 not yet unlearned.
        #expect(try parts.donations.delete(.identifiers(["u1-b"], app: "com.example.weather")) == 1)
        let stale = try #require(try parts.states.load(user: "u1", name: "blend"))
        let tables = try parts.tablesWithUser()
        #expect(Set(tables).isSuperset(of: ["donation", "feedback", "model_state", "model_state_heavy", "model_erasure"]))
        #expect(try tables.allSatisfy { try parts.rowsOfUser($0, "u1") > 0 }, "every table holds something of u1")
        let counts = try parts.privacy.forget(user: "u1")
        #expect(counts == ["donation": 1, "feedback": 1, "model_state": 1, "model_state_heavy": 1, "relevant_shortcut_set": 1,
                           "widget_timeline": 1, "user_setting": 1])
        for table in tables {
            #expect(try parts.rowsOfUser(table, "u1") == 0, "\(table) still holds u1")
            #expect(try parts.rowsOfUser(table, "u2") == (table == "model_erasure" ? 0 : table == "donation" ? 2 : 1), "\(table) of u2")
        }
        #expect(try !parts.states.save(stale), "a stale holder cannot write the forgotten user back")
        #expect(try parts.states.load(user: "u1", name: "blend") == nil)
        #expect(try parts.privacy.forget(user: "u1").isEmpty)
    }

    public static func physicalErasureRuns(_ parts: StoreParts) throws {
        try parts.donations.append([sample(identifier: "a")], duplicates: .fail)
        _ = try parts.privacy.forget(user: "u1")
        _ = try parts.privacy.eraseTraces()
        let report = try parts.privacy.compact()
        #expect(report.fileBytesAfter > 0)
        #expect(try parts.donations.all().isEmpty)
    }
}
