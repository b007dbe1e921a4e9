import Foundation
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

/// App isolation: every operation an app can ask for, tried on another app's
/// data, is refused (`.accessDenied`) and changes nothing; the same operation
/// on its own data works; the device owner sees everything.
@Suite("App isolation")
struct IsolationTests {
    static let mail = "com.example.mail"
    static let bank = "com.example.bank"
    static let day = Date(timeIntervalSince1970: sampleDay)
    static let filterDeclaration = #"{"title":"F","parameters":[{"name":"account","type":"entity"}]}"#

    /// A store holding donations, shortcuts, timelines and a Focus filter of two apps.
    static func populated() throws -> ProactiveDatabase {
        let database = try ProactiveDatabase.inMemory()
        let donations = SQLiteDonationStore(database: database)
        let declarations = SQLiteDeclarationStore(database: database)
        let focus = SQLiteFocusStore(database: database)
        for app in [mail, bank] {
            try donations.append((0..<3).map { sample(app: app, minutes: Double($0), identifier: "\(app)-\($0)", group: "g") }, duplicates: .fail)
            try declarations.replaceShortcutSet(StoredShortcutSet(user: "u1", app: app, declaredAt: day, shortcutsJSON: #"[{"widgetKind":"k"}]"#))
            try declarations.replaceTimeline(StoredTimeline(user: "u1", widget: "\(app)/w", app: app, timelineJSON: #"{"entries":[{"x":1}]}"#))
            try focus.declareFilter(app: app, declaration: filterDeclaration, keeping: ["work": ["account": .entity(id: "work", display: nil)]])
            try focus.setAppContext(StoredAppContext(app: app, focus: "work", filterPredicate: nil, badgeCount: 2))
        }
        try declarations.appendFeedback([StoredFeedback(user: "u1", date: day, kind: "tap", scope: "target:x", app: bank, eventJSON: "{}")])
        try focus.addSchedule(StoredFocusSchedule(focus: "work", weekdays: [0], startMinute: 540, endMinute: 1020, timeZone: "UTC"))
        return database
    }

    /// Everything the store holds, to show a refused operation changed nothing.
    static func snapshot(_ database: ProactiveDatabase) throws -> String {
        let donations = try SQLiteDonationStore(database: database).all().map(DonationLineCodec.encode)
        let declarations = SQLiteDeclarationStore(database: database)
        let focus = SQLiteFocusStore(database: database)
        return "\(donations)|\(try declarations.shortcutSets(user: "u1"))|\(try declarations.timelines(user: "u1"))|"
            + "\(try declarations.feedback(user: "u1"))|\(try focus.allFilters())|\(try focus.schedules())|\(try SQLiteDonationStore(database: database).timeZone(forUser: "u1") ?? "-")"
    }

    // MARK: Refusals

    /// Every operation of the scoped stores that touches another app's data or
    /// the device owner's, as the mail app.
    static func donations(_ db: ProactiveDatabase) -> AppScopedDonationStore { AppScopedDonationStore(SQLiteDonationStore(database: db), access: .app(mail)) }
    static func declarations(_ db: ProactiveDatabase) -> AppScopedDeclarationStore { AppScopedDeclarationStore(SQLiteDeclarationStore(database: db), access: .app(mail)) }
    static func focus(_ db: ProactiveDatabase) -> AppScopedFocusStore { AppScopedFocusStore(SQLiteFocusStore(database: db), access: .app(mail)) }

    static let foreignOperations: [(String, @Sendable (ProactiveDatabase) throws -> Void)] = {
        [
            ("donate for another app", { _ = try donations($0).append(sample(app: bank, identifier: "x")) }),
            ("donate a mixed batch", { _ = try donations($0).append([sample(app: mail, identifier: "m9"), sample(app: bank, identifier: "b9")], duplicates: .skip) }),
            ("donate inside a transaction", { db in
                _ = try donations(db).inOneTransaction { appender -> AppendResult in try appender.append([sample(app: bank, identifier: "t")], duplicates: .skip) }
            }),
            ("import another app's log", { db in
                let directory = try TemporaryDirectory()
                let log = try directory.write("log.jsonl", DonationLineCodec.encode(sample(app: bank, identifier: "imported")) + "\n")
                _ = try DonationImporter(store: donations(db)).importJSONLines(path: log)
            }),
            ("delete by identifier", { _ = try donations($0).delete(.identifiers(["\(bank)-0"], app: bank)) }),
            ("delete by group", { _ = try donations($0).delete(.group("g", app: bank)) }),
            ("delete by filter", { _ = try donations($0).delete(.matching(DonationFilter(app: bank))) }),
            ("export", { _ = try DonationExporter(store: donations($0)).exportedText(matching: DonationFilter(app: bank)) }),
            ("list a page", { _ = try donations($0).page(matching: DonationFilter(app: bank), after: nil, limit: 10) }),
            ("count", { _ = try donations($0).statistics(matching: DonationFilter(user: "u1", app: bank)) }),
            ("set a time zone", { try donations($0).setTimeZone("Europe/Paris", forUser: "u1") }),
            ("replace shortcuts", { try declarations($0).replaceShortcutSet(StoredShortcutSet(user: "u1", app: bank, declaredAt: day, shortcutsJSON: "[]")) }),
            ("replace a timeline", { try declarations($0).replaceTimeline(StoredTimeline(user: "u1", widget: "\(bank)/w", app: bank, timelineJSON: #"{"entries":[]}"#)) }),
            ("record feedback", { try declarations($0).appendFeedback([StoredFeedback(user: "u1", date: day, kind: "tap", scope: "target:y", app: mail, eventJSON: "{}")]) }),
            ("read feedback", { _ = try declarations($0).feedback(user: "u1") }),
            ("declare a Focus filter", { try focus($0).declareFilter(app: bank, declaration: filterDeclaration) }),
            ("remove a Focus filter", { _ = try focus($0).removeFilter(app: bank) }),
            ("configure a Focus filter", { try focus($0).replaceValues(app: bank, focus: "work", [:]) }),
            ("set an app context", { try focus($0).setAppContext(StoredAppContext(app: bank, focus: "work", filterPredicate: nil, badgeCount: nil)) }),
            ("read a Focus filter", { _ = try focus($0).filter(app: bank) }),
            ("read Focus schedules", { _ = try focus($0).schedules() }),
            ("read Focus changes", { _ = try focus($0).changes() }),
        ]
    }()

    @Test(arguments: foreignOperations.indices)
    func anAppIsRefusedOtherAppsData(operation: Int) throws {
        let (name, body) = Self.foreignOperations[operation]
        let database = try Self.populated()
        let before = try Self.snapshot(database)
        do {
            try body(database)
            Issue.record("\(name): allowed")
        } catch let error as StoreError {
            #expect(error.code == .accessDenied, "\(name): \(error)")
            #expect(error.message.hasPrefix("\(Self.mail) may not "), "\(name): \(error)")
        }
        #expect(try Self.snapshot(database) == before, "\(name) changed the store")
    }

    // MARK: What an app may do

    @Test func anAppSeesAndChangesOnlyItsOwnData() throws {
        let database = try Self.populated()
        let access = StoreAccess.app(Self.mail)
        let donations = AppScopedDonationStore(SQLiteDonationStore(database: database), access: access)
        #expect(try donations.all().allSatisfy { $0.app == Self.mail })
        #expect(try donations.count() == 3)
        #expect(try donations.donations(forUser: "u1", in: .all).count == 3)
        #expect(try donations.users() == ["u1"])
        #expect(try donations.statistics(matching: .everything).byApp.map(\.name) == [Self.mail])
        let exported = try DonationExporter(store: donations).exportedText().split(separator: "\n")
        #expect(exported.count == 3 && exported.allSatisfy { $0.contains(Self.mail) })

        try donations.append(sample(app: Self.mail, minutes: 10, identifier: "new"))
        #expect(try donations.delete(.identifiers(["\(Self.mail)-0"], app: Self.mail)) == 1)
        #expect(try donations.delete(.matching(.everything)) == 3)  // "all" is all of the app's own
        #expect(try SQLiteDonationStore(database: database).count(matching: DonationFilter(app: Self.bank)) == 3)

        let declarations = AppScopedDeclarationStore(SQLiteDeclarationStore(database: database), access: access)
        #expect(try declarations.shortcutSets(user: "u1").map(\.app) == [Self.mail])
        #expect(try declarations.timelines(user: "u1").map(\.app) == [Self.mail])
        try declarations.replaceShortcutSet(StoredShortcutSet(user: "u1", app: Self.mail, declaredAt: Self.day, shortcutsJSON: "[]"))
        #expect(try declarations.shortcutSets(user: "u1").isEmpty)

        let focus = AppScopedFocusStore(SQLiteFocusStore(database: database), access: access)
        #expect(try focus.visibleFilters().map(\.app) == [Self.mail])
        try focus.replaceValues(app: Self.mail, focus: "personal", ["account": .entity(id: "home", display: nil)])
        #expect(try focus.removeFilter(app: Self.mail))
        #expect(try focus.visibleFilters().isEmpty)
        #expect(try SQLiteFocusStore(database: database).allFilters().map(\.app) == [Self.bank])
    }

    @Test func theDeviceOwnerSeesEveryApp() throws {
        let database = try Self.populated()
        let donations = AppScopedDonationStore(SQLiteDonationStore(database: database), access: .administrator)
        #expect(try donations.count() == 6)
        #expect(try donations.delete(.identifiers(["\(Self.bank)-0"], app: Self.bank)) == 1)
        let declarations = AppScopedDeclarationStore(SQLiteDeclarationStore(database: database), access: .administrator)
        #expect(try declarations.shortcutSets(user: "u1").count == 2)
        #expect(try declarations.feedback(user: "u1").count == 1)
        #expect(try AppScopedFocusStore(SQLiteFocusStore(database: database), access: .administrator).visibleFilters().count == 2)
    }

    @Test func filtersAreNarrowedToTheActingApp() throws {
        let access = StoreAccess.app(Self.mail)
        #expect(try access.scope(DonationFilter(user: "u1"), to: "read") == DonationFilter(user: "u1", app: Self.mail))
        #expect(try access.scope(DonationFilter(app: Self.mail), to: "read") == DonationFilter(app: Self.mail))
        #expect(throws: StoreError(.accessDenied, "com.example.mail may not read com.example.bank's data: an app sees and changes only its own")) {
            try access.scope(DonationFilter(app: Self.bank), to: "read")
        }
        #expect(try StoreAccess.administrator.scope(DonationFilter(app: Self.bank), to: "read") == DonationFilter(app: Self.bank))
    }
}
