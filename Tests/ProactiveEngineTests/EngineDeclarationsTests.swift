import Foundation
import ProactiveCore
import ProactiveRanking
import ProactiveStore
import Testing
@testable import ProactiveEngine

/// Intent definitions, relevant shortcuts, widget timelines and the Smart Stack's widget names,
/// all through the Engine (what an app that embeds the library calls).
@Suite("Engine declarations")
struct EngineDeclarationsTests {
    static let weather = "com.example.weather"
    static let coffee = "com.example.coffee"
    static let day0 = Date(timeIntervalSince1970: 1_795_564_800)  // 2026-11-25T00:00:00Z, a Wednesday

    static let definitions = [
        IntentDefinition(app: weather, name: "CheckWeatherIntent",
                         parameters: [ParameterDefinition(name: "location", type: .entity(type: "City"))],
                         combinations: [ParameterCombination(parameters: ["location"], summary: "Weather in ${location}")],
                         widgetKind: "forecast"),
        IntentDefinition(app: coffee, name: "OrderCoffeeIntent", parameters: [ParameterDefinition(name: "item", type: .string)],
                         combinations: [ParameterCombination(parameters: ["item"], summary: "Order a ${item}")], widgetKind: "order"),
    ]

    static func at(_ day: Int, _ hour: Int, _ minute: Int) -> Date {
        day0.addingTimeInterval(Double(day * 86_400 + hour * 3_600 + minute * 60))
    }

    /// Ten mornings of weather at 07:05 (Cupertino) and coffee at 07:40, definitions stored.
    static func mornings(_ store: TemporaryStore) throws -> Engine {
        let engine = try store.engine()
        try engine.storeDefinitions(definitions)
        for day in 0 ..< 10 {
            try engine.donate(Donation(user: "me", app: weather, intent: "CheckWeatherIntent",
                                       parameters: ["location": .entity(id: "sf", display: "San Francisco")], date: at(day, 7, 5), utcOffset: 0))
            try engine.donate(Donation(user: "me", app: coffee, intent: "OrderCoffeeIntent", parameters: ["item": .string("latte")],
                                       date: at(day, 7, 40), utcOffset: 0))
        }
        return engine
    }

    // MARK: Definitions

    @Test func definitionsReplaceTheAppsTheyNameAndNoOther() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        #expect(try engine.storeDefinitions(Self.definitions) == [Self.weather, Self.coffee])
        let renamed = IntentDefinition(app: Self.coffee, name: "OrderDrinkIntent", parameters: [ParameterDefinition(name: "item", type: .string)])
        #expect(try engine.storeDefinitions([renamed]) == [Self.coffee])
        #expect(try engine.storedDefinitions().map(\.name).sorted() == ["CheckWeatherIntent", "OrderDrinkIntent"])
        #expect(try engine.removeDefinitions(app: Self.coffee) == 1)
        #expect(try engine.removeDefinitions(app: Self.coffee) == 0)
        #expect(try engine.definitions().definitions.map(\.app) == [Self.weather])
    }

    @Test func badDefinitionsStoreNothing() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        #expect(throws: EngineError(.invalidRequest, "no intent definition to store")) { try engine.storeDefinitions([]) }
        #expect(throws: StoreError.self) { try engine.storeDefinitions(Self.definitions + [Self.definitions[0]]) }
        let migratesItself = IntentDefinition(app: Self.weather, name: "WeatherIntent", migratesFrom: "CheckWeatherIntent")
        #expect(throws: DefinitionError.self) { try engine.storeDefinitions(Self.definitions + [migratesItself]) }
        let asApp = Engine(database: engine.database, access: .app(Self.coffee))
        #expect(throws: StoreError.self) { try asApp.storeDefinitions([Self.definitions[1]]) }
        #expect(try engine.storedDefinitions().isEmpty)
    }

    // MARK: Shortcuts and timelines

    @Test func shortcutsReplaceTheAppsSetAndSayWhatTheyReplaced() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        let widget = WidgetID(app: Self.coffee, kind: "order")
        let window = RelevanceProvider.date(start: Self.at(0, 9, 0), end: Self.at(0, 10, 0))
        let two = RelevantShortcutSet(app: Self.coffee, shortcuts: [RelevantShortcut(widget: widget, providers: [window]),
                                                                     RelevantShortcut(widget: widget, role: .information, providers: [window])],
                                      declaredAt: Self.at(0, 8, 0))
        #expect(try engine.declareShortcuts(two, user: "me") == nil)
        let one = RelevantShortcutSet(app: Self.coffee, shortcuts: [RelevantShortcut(widget: widget, providers: [window])], declaredAt: Self.at(0, 8, 30))
        #expect(try engine.declareShortcuts(one, user: "me") == 2)
        let (declarations, _) = try engine.declarations(user: "me")
        #expect(declarations.shortcuts.sets[Self.coffee]?.shortcuts.count == 1)
        // Another app may not declare the coffee app's shortcuts.
        let asWeather = Engine(database: engine.database, access: .app(Self.weather))
        #expect(throws: StoreError.self) { try asWeather.declareShortcuts(two, user: "me") }
        #expect(try engine.declarations(user: "me").0.shortcuts.sets[Self.coffee]?.shortcuts.count == 1)
    }

    @Test func timelinesAreStoredAllOrNothingForTheActingApp() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        let order = try WidgetTimeline(widget: WidgetID(app: Self.coffee, kind: "order"),
                                       entries: [TimelineEntry(date: Self.at(0, 7, 0), score: 10), TimelineEntry(date: Self.at(0, 7, 30), score: 40, duration: 600)])
        let forecast = try WidgetTimeline(widget: WidgetID(app: Self.weather, kind: "forecast"), entries: [TimelineEntry(date: Self.at(0, 6, 0), score: 5)])
        let asCoffee = Engine(database: engine.database, access: .app(Self.coffee))
        #expect(throws: StoreError.self) { try asCoffee.replaceTimelines([order, forecast], user: "me") }
        #expect(try engine.declarations(user: "me").0.timelines.sorted.isEmpty)
        try asCoffee.replaceTimelines([order], user: "me")
        #expect(try engine.declarations(user: "me").0.timelines.sorted.map(\.widget.key) == ["com.example.coffee/order"])
        // A timeline without entries removes the widget's.
        try asCoffee.replaceTimelines([try WidgetTimeline(widget: order.widget, entries: [])], user: "me")
        #expect(try engine.declarations(user: "me").0.timelines.sorted.isEmpty)
    }

    /// docs/FORMATS.md once wrote an entity parameter as a bare string: the widget it declared
    /// and the one the user's donations configure (the entity with its display) must be one
    /// candidate, not two with one key.
    @Test func aBareStringEntityNamesTheDonatedWidget() throws {
        let store = try TemporaryStore()
        let engine = try Self.mornings(store)
        let bare = try WidgetTimeline.decodeOne("""
            {"app": "com.example.weather", "widgetKind": "forecast",
             "configuration": {"intent": "CheckWeatherIntent", "parameters": {"location": "sf"}},
             "entries": [{"date": "2026-12-05T07:00:00Z", "score": 50, "duration": 3600}]}
            """)
        try engine.replaceTimelines([bare], user: "me")
        let decision = try engine.stackDecision(user: "me", widgets: ["weather", "coffee"], at: Self.at(10, 7, 10), utcOffset: 0)
        let keys = decision.candidates.map(\.widget.key)
        #expect(keys.count == Set(keys).count, "candidates with one key: \(keys)")
        #expect(keys.filter { $0.hasPrefix("com.example.weather/forecast") } == ["com.example.weather/forecast[CheckWeatherIntent(location=sf)]"])
    }

    // MARK: Stack names

    @Test func aWidgetWhoseDonationsWereDeletedIsSkippedWithAReason() throws {
        let store = try TemporaryStore()
        let engine = try Self.mornings(store)
        try engine.train(user: "me")
        #expect(try engine.delete(.matching(DonationFilter(app: Self.coffee))) == 10)
        let decision = try engine.stackDecision(user: "me", widgets: ["weather", "coffee"], at: Self.at(10, 7, 10), utcOffset: 0)
        #expect(decision.top.app == Self.weather)
        #expect(decision.skipped.count == 1)
        #expect(decision.skipped.first?.hasPrefix("coffee (com.example.coffee/order) skipped: user me has no donation") == true)
        // Only skipped widgets: nothing to show, and the error says why.
        #expect(throws: EngineError.self) { try engine.stackDecision(user: "me", widgets: ["coffee"], at: Self.at(10, 7, 10), utcOffset: 0) }
    }

    @Test func anUnknownWidgetIsRefusedInLibraryTerms() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        try engine.donate(Donation(user: "me", app: Self.coffee, intent: "OrderCoffeeIntent", date: Self.at(0, 7, 40), utcOffset: 0))
        do {
            _ = try engine.stackDecision(user: "me", widgets: ["coffee"], at: Self.at(1, 7, 0), utcOffset: 0)
            Issue.record("a stack of unknown widgets was decided")
        } catch let error as EngineError {
            #expect(error.code == .invalidRequest)
            #expect(error.description.contains("no widget named \"coffee\""))
            #expect(!error.description.contains("--"), "a library error names no command-line option: \(error)")
        }
    }

    // MARK: Feedback

    @Test func feedbackNamesWhatItIsAboutAsAPersonWould() throws {
        let store = try TemporaryStore()
        let engine = try Self.mornings(store)
        let latte = "com.example.coffee:OrderCoffeeIntent(item=latte)"
        let tap = try engine.feedbackEvent(user: "me", kind: .tap, about: .target(latte), at: Self.at(10, 7, 41))
        #expect(tap.scope == .target(TargetKey(rawValue: latte)) && tap.app == Self.coffee)
        #expect(tap.action == WidgetConfiguration(intent: "OrderCoffeeIntent", parameters: ["item": .string("latte")]))
        let notNow = try engine.feedbackEvent(user: "me", kind: .dismiss, about: .widget("weather"), at: Self.at(10, 7, 6))
        #expect(notNow.scope.description.hasPrefix("widget:com.example.weather/forecast[CheckWeatherIntent(location=sf)]"))
        let never = try engine.feedbackEvent(user: "me", kind: .never, about: .app("com.example.news"), context: ["focus": "work"],
                                             at: Self.at(10, 8, 0))
        #expect(never.app == "com.example.news" && never.context == ["focus": "work"])
        // A tap is recorded and donates what it ran.
        let recorded = try engine.recordFeedback([tap, notNow, never], user: "me", utcOffset: 0)
        #expect(recorded.map(\.donationStored) == [true, false, false])
        #expect(try engine.declarations(user: "me").1.count == 3)
    }

    @Test func feedbackAboutSomethingUnknownIsRefused() throws {
        let store = try TemporaryStore()
        let engine = try Self.mornings(store)
        #expect(throws: EngineError(.invalidRequest, "user me has no target com.example.coffee:OrderTeaIntent")) {
            try engine.feedbackEvent(user: "me", kind: .tap, about: .target("com.example.coffee:OrderTeaIntent"), at: Self.at(10, 7, 0))
        }
        #expect(throws: EngineError.self) { try engine.feedbackEvent(user: "me", kind: .dismiss, about: .widget("nosuch"), at: Self.at(10, 7, 0)) }
        #expect(throws: FeedbackError.self) { try engine.feedbackEvent(user: "me", kind: .dismiss, about: .app(Self.coffee), at: Self.at(10, 7, 0)) }
    }
}

extension WidgetTimeline {
    /// The one timeline of a `timeline set` file.
    static func decodeOne(_ text: String) throws -> WidgetTimeline {
        let timelines = try WidgetTimelineCodec.decode(text)
        guard timelines.count == 1 else { throw EngineError(.invalidRequest, "\(timelines.count) timelines") }
        return timelines[0]
    }
}
