import Foundation
import GRDB
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

/// Relevant shortcuts, widget timelines and feedback in the store file.
@Suite struct DeclarationStoreTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    let morning = Date(timeIntervalSince1970: 1_795_705_260)   // 2026-11-26T07:01:00-08:00

    @Test func aNewSetReplacesTheWholePreviousOne() throws {
        let path = directory.file("declarations.sqlite")
        let store = SQLiteDeclarationStore(database: try ProactiveDatabase(path: path))
        try store.replaceShortcutSet(StoredShortcutSet(user: "u1", app: "com.example.bank", declaredAt: morning,
                                                       shortcutsJSON: #"[{"widgetKind":"recentPurchases"},{"widgetKind":"balance"}]"#))
        try store.replaceShortcutSet(StoredShortcutSet(user: "u1", app: "com.example.calendar", declaredAt: morning, shortcutsJSON: #"[{"widgetKind":"calendar"}]"#))
        try store.replaceShortcutSet(StoredShortcutSet(user: "u2", app: "com.example.bank", declaredAt: morning, shortcutsJSON: #"[{"widgetKind":"balance"}]"#))
        let later = morning.addingTimeInterval(60)
        try store.replaceShortcutSet(StoredShortcutSet(user: "u1", app: "com.example.bank", declaredAt: later, shortcutsJSON: #"[{"widgetKind":"balance"}]"#))
        // Reopen: it is on disk.
        let reopened = SQLiteDeclarationStore(database: try ProactiveDatabase(path: path, mode: .mustExist))
        #expect(try reopened.shortcutSets(user: "u1") == [
            StoredShortcutSet(user: "u1", app: "com.example.bank", declaredAt: later, shortcutsJSON: #"[{"widgetKind":"balance"}]"#),
            StoredShortcutSet(user: "u1", app: "com.example.calendar", declaredAt: morning, shortcutsJSON: #"[{"widgetKind":"calendar"}]"#),
        ])
        try reopened.replaceShortcutSet(StoredShortcutSet(user: "u1", app: "com.example.bank", declaredAt: later, shortcutsJSON: "[]"))
        #expect(try reopened.shortcutSets(user: "u1").map(\.app) == ["com.example.calendar"])
        #expect(try reopened.shortcutSets(user: "u2").count == 1)
    }

    @Test func timelinesAreReplacedPerWidget() throws {
        let store = SQLiteDeclarationStore(database: try ProactiveDatabase.inMemory())
        let widget = "com.example.bank/recentPurchases"
        try store.replaceTimeline(StoredTimeline(user: "u1", widget: widget, app: "com.example.bank", timelineJSON: #"{"entries":[{"date":1,"score":1}]}"#))
        try store.replaceTimeline(StoredTimeline(user: "u1", widget: widget, app: "com.example.bank", timelineJSON: #"{"entries":[{"date":2,"score":5}]}"#))
        #expect(try store.timelines(user: "u1").map(\.timelineJSON) == [#"{"entries":[{"date":2,"score":5}]}"#])
        try store.replaceTimeline(StoredTimeline(user: "u1", widget: widget, app: "com.example.bank", timelineJSON: #"{"entries":[]}"#))
        #expect(try store.timelines(user: "u1").isEmpty)
    }

    @Test func feedbackComesBackInDateOrder() throws {
        let store = SQLiteDeclarationStore(database: try ProactiveDatabase.inMemory())
        let events = [
            StoredFeedback(user: "u1", date: morning.addingTimeInterval(60), kind: "tap", scope: "target:a:b", app: "a", eventJSON: "{\"n\":1}"),
            StoredFeedback(user: "u1", date: morning, kind: "dismiss", scope: "widget:a/w", app: "a", eventJSON: "{\"n\":2}"),
            StoredFeedback(user: "u1", date: morning, kind: "never", scope: "app:a", app: "a", eventJSON: "{\"n\":3}"),
            StoredFeedback(user: "u2", date: morning, kind: "never", scope: "app:a", app: "a", eventJSON: "{\"n\":4}"),
        ]
        try store.appendFeedback(events)
        #expect(try store.feedback(user: "u1") == [events[1], events[2], events[0]])
    }

    @Test(arguments: [
        StoredFeedback(user: "u1", date: Date(timeIntervalSince1970: 0), kind: "like", scope: "app:a", app: "a", eventJSON: "{}"),
        StoredFeedback(user: "u1", date: Date(timeIntervalSince1970: 0), kind: "tap", scope: "app:a", app: "a", eventJSON: "{}"),
        StoredFeedback(user: "u1", date: Date(timeIntervalSince1970: 0), kind: "tap", scope: "thing:a", app: "a", eventJSON: "{}"),
        StoredFeedback(user: "u1", date: Date(timeIntervalSince1970: 0), kind: "tap", scope: "target:a:b", app: "a", eventJSON: "[]"),
        StoredFeedback(user: "", date: Date(timeIntervalSince1970: 0), kind: "tap", scope: "target:a:b", app: "a", eventJSON: "{}"),
    ])
    func constraintsRejectMalformedFeedback(event: StoredFeedback) throws {
        let store = SQLiteDeclarationStore(database: try ProactiveDatabase.inMemory())
        #expect(throws: StoreError.self) { try store.appendFeedback([event]) }
        #expect(try store.feedback(user: "u1").isEmpty)
    }

    @Test func constraintsRejectMalformedDeclarations() throws {
        let store = SQLiteDeclarationStore(database: try ProactiveDatabase.inMemory())
        #expect(throws: StoreError.self) {
            try store.replaceShortcutSet(StoredShortcutSet(user: "u1", app: "a", declaredAt: morning, shortcutsJSON: #"{"widgetKind":"x"}"#))
        }
        #expect(throws: StoreError.self) {
            try store.replaceTimeline(StoredTimeline(user: "u1", widget: "a/w", app: "a", timelineJSON: #"{"entries":{}}"#))
        }
    }

    /// Issue 16, item 4: a timeline is keyed by its (app, kind) pair; an app
    /// whose name holds `/`, or a key of another app, cannot reach another timeline.
    @Test func aTimelineKeyNamesItsOwnAppAndKind() throws {
        let store = SQLiteDeclarationStore(database: try ProactiveDatabase.inMemory())
        try store.replaceTimeline(StoredTimeline(user: "u1", widget: "com.b/news/top", app: "com.b", timelineJSON: #"{"entries":[{"s":5}]}"#))
        for (app, widget) in [("com.b/news", "com.b/news/top"), ("com.a", "com.b/news/top"), ("com.b", "com.b/")] {
            let error = storeError { try store.replaceTimeline(StoredTimeline(user: "u1", widget: widget, app: app, timelineJSON: #"{"entries":[]}"#)) }
            #expect(error?.code == .invalidRequest, "\(app) \(widget)")
        }
        #expect(try store.timelines(user: "u1").map(\.timelineJSON) == [#"{"entries":[{"s":5}]}"#])
    }
}
