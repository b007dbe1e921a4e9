import Foundation
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

@Suite("Focus store and intent definition store")
struct FocusStoreTests {
    static let mail = "com.example.mail"
    static let chat = "com.example.chat"
    static let declaration = #"{"app":"com.example.mail","title":"Mail","parameters":[{"name":"account","type":"entity"}]}"#

    static func store() throws -> SQLiteFocusStore { SQLiteFocusStore(database: try ProactiveDatabase.inMemory()) }

    @Test func migrationsAreRegistered() throws {
        let applied = try ProactiveDatabase.inMemory().appliedMigrations()
        #expect(applied.drop { $0 != "v4_focus" }.prefix(2) == ["v4_focus", "v5_intent_definitions"])
    }

    // MARK: Schedules and changes

    @Test func schedulesRoundTripAndAreRemovedById() throws {
        let store = try Self.store()
        let work = StoredFocusSchedule(focus: "work", weekdays: [0, 1, 2, 3, 4], startMinute: 540, endMinute: 1050, timeZone: "America/Los_Angeles")
        let sleep = StoredFocusSchedule(focus: "sleep", weekdays: [5, 6], startMinute: 1320, endMinute: 420, timeZone: "Europe/Paris")
        let workID = try store.addSchedule(work)
        let sleepID = try store.addSchedule(sleep)
        var expectedWork = work, expectedSleep = sleep
        expectedWork.id = workID
        expectedSleep.id = sleepID
        #expect(try store.schedules() == [expectedWork, expectedSleep])
        #expect(try store.removeSchedule(id: workID))
        #expect(try !store.removeSchedule(id: workID))
        #expect(try store.schedules() == [expectedSleep])
    }

    @Test func theSchemaRefusesBadSchedules() throws {
        let store = try Self.store()
        let cases = [
            StoredFocusSchedule(focus: "work", weekdays: [], startMinute: 540, endMinute: 1050, timeZone: "UTC"),
            StoredFocusSchedule(focus: "Work", weekdays: [0], startMinute: 540, endMinute: 1050, timeZone: "UTC"),
            StoredFocusSchedule(focus: "work", weekdays: [0], startMinute: 1440, endMinute: 1050, timeZone: "UTC"),
        ]
        for schedule in cases {
            let error = #expect(throws: StoreError.self) { try store.addSchedule(schedule) }
            #expect(error?.code == .database)
        }
    }

    @Test func changesComeBackInDateOrder() throws {
        let store = try Self.store()
        let base = Date(timeIntervalSince1970: 1_795_000_000)
        try store.recordChange(StoredFocusChange(date: base.addingTimeInterval(60), focus: nil))
        try store.recordChange(StoredFocusChange(date: base, focus: "personal"))
        try store.recordChange(StoredFocusChange(date: base.addingTimeInterval(60), focus: "work"))
        #expect(try store.changes() == [StoredFocusChange(date: base, focus: "personal"),
                                        StoredFocusChange(date: base.addingTimeInterval(60), focus: nil),
                                        StoredFocusChange(date: base.addingTimeInterval(60), focus: "work")])
    }

    // MARK: Filters

    @Test func filtersKeepValuesAndContextsPerAppAndFocus() throws {
        let store = try Self.store()
        try store.declareFilter(app: Self.mail, declaration: Self.declaration)
        try store.declareFilter(app: Self.chat, declaration: #"{"app":"com.example.chat","title":"Chat","parameters":[]}"#)
        let personal: [String: ParameterValue] = ["account": .entity(id: "personal", display: "Personal")]
        try store.replaceValues(app: Self.mail, focus: "personal", personal)
        try store.replaceValues(app: Self.chat, focus: "personal", ["account": .string("work")])
        try store.setAppContext(StoredAppContext(app: Self.mail, focus: "personal", filterPredicate: #"account == "personal""#, badgeCount: 2))

        let mail = try #require(try store.filter(app: Self.mail))
        #expect(mail.declaration == Self.declaration)
        #expect(mail.values == ["personal": personal])                           // the chat app's value is not mail's
        #expect(mail.contexts == [StoredAppContext(app: Self.mail, focus: "personal", filterPredicate: #"account == "personal""#, badgeCount: 2)])
        #expect(try store.allFilters().map(\.app) == [Self.chat, Self.mail])

        // Replacing one Focus leaves the others; an empty set clears it.
        try store.replaceValues(app: Self.mail, focus: "work", ["account": .entity(id: "work", display: nil)])
        try store.replaceValues(app: Self.mail, focus: "personal", [:])
        #expect(try store.filter(app: Self.mail)?.values == ["work": ["account": .entity(id: "work", display: nil)]])
        try store.setAppContext(StoredAppContext(app: Self.mail, focus: "personal", filterPredicate: nil, badgeCount: nil))
        #expect(try store.filter(app: Self.mail)?.contexts == [])
    }

    @Test func anUndeclaredAppCannotStoreValuesAndRemovalCascades() throws {
        let store = try Self.store()
        let error = #expect(throws: StoreError.self) { try store.replaceValues(app: Self.chat, focus: "work", ["a": .bool(true)]) }
        #expect(error == StoreError(.invalidRequest, "\(Self.chat) has not declared a Focus filter"))
        #expect(throws: StoreError.self) { try store.setAppContext(StoredAppContext(app: Self.chat, focus: "work", filterPredicate: nil, badgeCount: 1)) }

        try store.declareFilter(app: Self.mail, declaration: Self.declaration)
        try store.replaceValues(app: Self.mail, focus: "work", ["account": .string("w")])
        try store.setAppContext(StoredAppContext(app: Self.mail, focus: "work", filterPredicate: nil, badgeCount: 4))
        // Redeclaring keeps exactly the values passed.
        try store.declareFilter(app: Self.mail, declaration: Self.declaration, keeping: ["home": ["account": .string("h")]])
        #expect(try store.filter(app: Self.mail)?.values == ["home": ["account": .string("h")]])
        #expect(try store.removeFilter(app: Self.mail))
        #expect(try store.filter(app: Self.mail) == nil)
        let leftovers = try store.database.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT (SELECT count(*) FROM focus_filter_value) + (SELECT count(*) FROM focus_app_context)")
        }
        #expect(leftovers == 0)
    }
}
