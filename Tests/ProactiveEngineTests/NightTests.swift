import Foundation
import ProactiveCore
@testable import ProactiveEngine
import ProactiveModels
import ProactiveRanking
import ProactiveStore
import Testing

/// Issue 14, the night: for a user who never acts at night, nothing is suggested, rotated to
/// or inserted between 01:00 and 05:00; at the usual times the ranking is unchanged.
@Suite("Activity level in ranking")
struct NightTests {
    static let definitions = """
        [{"app":"com.example.weather","intents":[{"name":"CheckWeatherIntent",
           "parameters":[{"name":"location","type":"entity","entityType":"City"}],
           "combinations":[{"parameters":["location"],"summary":"Weather in ${location}"}],"widgetKind":"forecast"}]},
         {"app":"com.example.coffee","intents":[{"name":"OrderCoffeeIntent","parameters":[{"name":"item","type":"string"}],
           "combinations":[{"parameters":["item"],"summary":"Order a ${item}"}],"widgetKind":"order"}]}]
        """
    static let day0 = Date(timeIntervalSince1970: 1_795_564_800)  // 2026-11-25T00:00:00Z, a Wednesday

    static func at(_ day: Int, _ hour: Int, _ minute: Int) -> Date {
        day0.addingTimeInterval(Double(day * 86_400 + hour * 3_600 + minute * 60))
    }

    /// Six weeks of mornings: weather at 07:05, coffee at 07:40 (never at night).
    static func trainedEngine(_ store: TemporaryStore) throws -> Engine {
        let engine = try store.engine()
        let parsed = try IntentDefinitionSet.parse(definitions)
        try SQLiteIntentDefinitionStore(database: engine.database).replace(with: parsed, apps: Set(parsed.map(\.app)))
        var donations: [Donation] = []
        for day in 0 ..< 42 {
            donations.append(Donation(user: "me", app: "com.example.weather", intent: "CheckWeatherIntent",
                                      parameters: ["location": .entity(id: "cupertino", display: "Cupertino")],
                                      date: at(day, 7, 5 + day % 7), utcOffset: 0))
            donations.append(Donation(user: "me", app: "com.example.coffee", intent: "OrderCoffeeIntent",
                                      parameters: ["item": .string("latte")], date: at(day, 7, 38 + day % 5), utcOffset: 0))
        }
        try SQLiteDonationStore(database: engine.database).append(donations, duplicates: .fail)
        try engine.train(user: "me")
        return engine
    }

    @Test func nothingAtNightTheUsualInTheMorning() throws {
        let store = try TemporaryStore()
        let engine = try Self.trainedEngine(store)
        for minutes in stride(from: 60, through: 300, by: 30) {
            let date = Self.at(43, minutes / 60, minutes % 60)
            let prediction = try engine.predict(user: "me", at: date, utcOffset: 0, k: 1)
            #expect((prediction.activity ?? 1) < 0.02, "\(minutes / 60):\(minutes % 60) activity \(prediction.activity ?? -1)")
            #expect(prediction.suggestions[0].probability > 0.3)  // the model alone would be confident
            let suggestions = try engine.suggest(user: "me", at: date, utcOffset: 0, k: 4)
            #expect(suggestions.suggestions.isEmpty, "\(minutes / 60):\(minutes % 60): \(suggestions.suggestions.map(\.summary))")
            let stack = try engine.stackDecision(user: "me", widgets: ["weather", "coffee"], at: date, utcOffset: 0)
            #expect(stack.reason != .rotated && stack.inserted.isEmpty && stack.changes.isEmpty,
                    "\(minutes / 60):\(minutes % 60): \(stack.reason) \(stack.changes)")
        }
        // At the usual time the activity level is 1 and the suggestions are the model's.
        let morning = Self.at(43, 7, 38)
        let prediction = try engine.predict(user: "me", at: morning, utcOffset: 0, k: 2)
        #expect(prediction.activity == 1)
        let suggestions = try engine.suggest(user: "me", at: morning, utcOffset: 0, k: 2)
        #expect(suggestions.activity == 1)
        #expect(suggestions.suggestions.first?.summary == prediction.suggestions[0].summary)
        let stack = try engine.stackDecision(user: "me", widgets: ["weather", "coffee"], at: morning, utcOffset: 0)
        #expect(stack.reason == .rotated)
    }
}
