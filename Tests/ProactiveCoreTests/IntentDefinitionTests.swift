import Foundation
import Testing
@testable import ProactiveCore

@Suite("Intent definitions and targets")
struct IntentDefinitionTests {
    static func coffee(combination: [String]) -> String {
        let names = combination.map { "\"\($0)\"" }.joined(separator: ",")
        return """
        {"app":"com.example.coffee","intents":[{"name":"OrderCoffeeIntent",
          "parameters":[{"name":"item","type":"string"},{"name":"size","type":"enum","cases":["small","large"]},{"name":"date","type":"date"}],
          "combinations":[{"parameters":[\(names)],"summary":"Order a ${size} ${item}"}],
          "widgetKind":"com.example.coffee.order"}]}
        """
    }

    static func latte(day: Int) -> Donation {
        Donation(app: "com.example.coffee", intent: "OrderCoffeeIntent",
                 parameters: ["item": .string("iced latte"), "size": .string("large"), "date": .string("2026-11-\(10 + day)")],
                 date: Date(timeIntervalSince1970: Double(1_794_816_000 + day * 86_400)))
    }

    @Test func combinationWithDateMakesEveryDayANewTarget() throws {
        let definitions = try IntentDefinitionSet(IntentDefinitionSet.parse(Self.coffee(combination: ["item", "size", "date"])))
        let resolver = TargetResolver(definitions: definitions)
        let keys = Set((0..<5).map { resolver.target(for: Self.latte(day: $0)).key })
        #expect(keys.count == 5)
    }

    @Test func combinationWithoutDateMakesOneTarget() throws {
        let definitions = try IntentDefinitionSet(IntentDefinitionSet.parse(Self.coffee(combination: ["item", "size"])))
        let resolver = TargetResolver(definitions: definitions)
        let targets = (0..<5).map { resolver.target(for: Self.latte(day: $0)) }
        #expect(Set(targets.map(\.key)).count == 1)
        #expect(targets[0].key.rawValue == "com.example.coffee:OrderCoffeeIntent(item=iced latte,size=large)")
        #expect(targets[0].summary == "Order a large iced latte")
    }

    @Test func largestFullySetCombinationApplies() throws {
        let definition = IntentDefinition(app: "w", name: "CheckWeather",
                                          parameters: [.init(name: "location", type: .entity(type: "City")), .init(name: "unit", type: .string)],
                                          combinations: [.init(parameters: ["location"], summary: "Weather in ${location}"),
                                                         .init(parameters: ["location", "unit"], summary: "Weather in ${location} (${unit})")])
        let resolver = TargetResolver(definitions: try IntentDefinitionSet([definition]))
        let city = ParameterValue.entity(id: "cupertino", display: "Cupertino")
        let date = Date(timeIntervalSince1970: 0)
        #expect(resolver.target(for: Donation(app: "w", intent: "CheckWeather", parameters: ["location": city], date: date)).summary == "Weather in Cupertino")
        #expect(resolver.target(for: Donation(app: "w", intent: "CheckWeather", parameters: ["location": city, "unit": .string("C")], date: date)).summary == "Weather in Cupertino (C)")
        // Entities compare by id: a new display string is the same target.
        let renamed = ParameterValue.entity(id: "cupertino", display: "Cupertino, CA")
        #expect(resolver.target(for: Donation(app: "w", intent: "CheckWeather", parameters: ["location": city], date: date)).key
            == resolver.target(for: Donation(app: "w", intent: "CheckWeather", parameters: ["location": renamed], date: date)).key)
    }

    @Test func withoutDefinitionEveryParameterCounts() {
        let resolver = TargetResolver()
        let donation = Donation(app: "a", intent: "Play", parameters: ["song": .string("x"), "volume": .int(3)], date: Date(timeIntervalSince1970: 0))
        #expect(resolver.target(for: donation).key.rawValue == "a:Play(song=x,volume=3)")
        #expect(resolver.target(for: Donation(app: "com.mail", intent: "open", date: Date(timeIntervalSince1970: 0))).summary == "Open com.mail")
    }

    @Test func legacyClassNameResolvesToTheMigratedIntent() throws {
        let definition = IntentDefinition(app: "c", name: "OrderCoffee", parameters: [.init(name: "item", type: .string)],
                                          combinations: [.init(parameters: ["item"], summary: "Order ${item}")], migratesFrom: "OrderCoffeeIntent")
        let resolver = TargetResolver(definitions: try IntentDefinitionSet([definition]))
        let date = Date(timeIntervalSince1970: 0)
        let legacy = resolver.target(for: Donation(app: "c", intent: "OrderCoffeeIntent", parameters: ["item": .string("latte")], date: date))
        let current = resolver.target(for: Donation(app: "c", intent: "OrderCoffee", parameters: ["item": .string("latte")], date: date))
        #expect(legacy.key == current.key)
    }

    @Test(arguments: [
        (#"{"app":"a","intents":[{"name":"I","parameters":[{"name":"x","type":"string"}],"combinations":[{"parameters":["y"]}]}]}"#,
         #"intents[0].combinations[0].parameters[0]: unknown parameter "y" (intent I has: x)"#),
        (#"{"app":"a","intents":[{"name":"I","parameters":[{"name":"x","type":"string"},{"name":"x","type":"int"}]}]}"#,
         #"intents[0].parameters[1].name: duplicate parameter name "x" in intent I"#),
        (#"{"app":"a","intents":[{"name":"I","parameters":[{"name":"x","type":"float"}]}]}"#,
         #"intents[0].parameters[0].type: unknown type "float" (expected string, int, double, bool, date, enum or entity)"#),
        (#"{"app":"a","intents":[{"name":"I"},{"name":"I"}]}"#, "I: intent I of a is defined twice"),
        (#"{"app":"a","intents":[{"name":"I","parameters":[{"name":"x","type":"enum"}]}]}"#,
         "intents[0].parameters[0].cases: an enum parameter needs at least one case"),
        (#"{"app":"a","intents":[{"name":"I","parameters":[{"name":"x","type":"string"}],"combinations":[{"parameters":["x"],"summary":"in ${z}"}]}]}"#,
         "intents[0].combinations[0].summary: placeholder ${z} is not a parameter of this combination (x)"),
        (#"{"app":"a","intents":[{"name":"I","configuresWidget":true}]}"#,
         "intents[0].widgetKind: an intent that configures a widget needs a widgetKind"),
        (#"{"intents":[]}"#, "app: missing (required)"),
        ("[1]", "[0]: must be an object, found an integer"),
    ])
    func validationErrorsArePrecise(text: String, message: String) {
        do {
            _ = try IntentDefinitionSet.parse(text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func targetKeyEscapesSeparators() {
        let key = TargetKey(app: "a", intent: "I", parameters: ["p": .string("x,y=(z):%")])
        #expect(key.rawValue == "a:I(p=x%2Cy%3D%28z%29%3A%25)")
    }
}
