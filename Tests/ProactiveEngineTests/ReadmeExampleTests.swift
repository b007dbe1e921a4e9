import Foundation
import ProactiveCore
import ProactiveEngine
import ProactiveRanking
import ProactiveStore
import Testing

// The README's library example is the code between the markers below, word for
// word (a test compares them); another test runs it.

// README-EXAMPLE-BEGIN
/// Two weeks of mornings, trained once; then one more donation is learned
/// without retraining, and the engine answers for 07:38 on the next day.
func morningRoutine(store path: String) throws -> (top: String, suggestions: [String], stackTop: String) {
    let engine = try Engine(path: path)
    let day0 = Date(timeIntervalSince1970: 1_795_564_800)  // 2026-11-26T00:00:00Z, a Thursday
    func at(_ day: Int, _ hour: Int, _ minute: Int) -> Date {
        day0.addingTimeInterval(Double(day * 86_400 + hour * 3_600 + minute * 60))
    }
    for day in 0 ..< 14 {
        try engine.donate(Donation(user: "me", app: "com.example.weather", intent: "CheckWeatherIntent",
                                   parameters: ["location": .entity(id: "cupertino", display: "Cupertino")],
                                   date: at(day, 7, 5), utcOffset: 0))
        try engine.donate(Donation(user: "me", app: "com.example.coffee", intent: "OrderCoffeeIntent",
                                   parameters: ["item": .string("latte")], date: at(day, 7, 40), utcOffset: 0))
    }
    try engine.train(user: "me")  // once: from now on every donation is learned as it arrives

    try engine.donate(Donation(user: "me", app: "com.example.weather", intent: "CheckWeatherIntent",
                               parameters: ["location": .entity(id: "cupertino", display: "Cupertino")],
                               date: at(14, 7, 6), utcOffset: 0))
    let prediction = try engine.predict(user: "me", at: at(14, 7, 38), utcOffset: 0, k: 2)
    let suggestions = try engine.suggest(user: "me", at: at(14, 7, 38), utcOffset: 0, k: 2)
    let stack = try engine.stackDecision(user: "me", widgets: ["weather", "coffee"],
                                         at: at(14, 7, 38), utcOffset: 0)
    return (prediction.rows[0].summary, suggestions.suggestions.map(\.summary), stack.top.displayName)
}
// README-EXAMPLE-END

@Suite("README example")
struct ReadmeExampleTests {
    @Test func runs() throws {
        let store = try TemporaryStore()
        let definitions = """
            [{"app":"com.example.weather","intents":[{"name":"CheckWeatherIntent",
               "parameters":[{"name":"location","type":"entity","entityType":"City"}],
               "combinations":[{"parameters":["location"],"summary":"Weather in ${location}"}],"widgetKind":"forecast"}]},
             {"app":"com.example.coffee","intents":[{"name":"OrderCoffeeIntent","parameters":[{"name":"item","type":"string"}],
               "combinations":[{"parameters":["item"],"summary":"Order a ${item}"}],"widgetKind":"order"}]}]
            """
        let engine = try store.engine()
        let parsed = try IntentDefinitionSet.parse(definitions)
        try SQLiteIntentDefinitionStore(database: engine.database).replace(with: parsed, apps: Set(parsed.map(\.app)))
        let result = try morningRoutine(store: store.path)
        // Five minutes to the coffee: the latte leads; both habits are suggested.
        #expect(result.top == "Order a latte")
        #expect(result.suggestions.contains("Order a latte"))
        #expect(!result.stackTop.isEmpty)
        // The extra donation was learned without a refit.
        let live = try Engine(path: store.path).liveModel(user: "me")
        #expect(!live.refitted && live.key.donationCount == 29)
    }

    @Test func theReadmeShowsThisCode() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        func between(_ text: String, _ start: String, _ end: String) -> String? {
            guard let a = text.range(of: start), let b = text.range(of: end, range: a.upperBound ..< text.endIndex) else { return nil }
            return String(text[a.upperBound ..< b.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let code = try #require(between(source, "// README-EXAMPLE-" + "BEGIN", "// README-EXAMPLE-" + "END"))
        let shown = try #require(between(readme, "<!-- library-example -->\n```swift", "```"))
        #expect(shown == code)
    }
}
