import Foundation
import Testing
@testable import ProactiveCore

@Suite("Migrated intents: schema compatibility")
struct MigrationTests {
    static let legacyJSON = """
    {"app":"com.example.coffee","intents":[{"name":"LegacyOrderCoffeeIntent",
      "parameters":[{"name":"item","type":"string","optional":false},
                    {"name":"size","type":"enum","cases":["small","large"]},
                    {"name":"shots","type":"int"},
                    {"name":"store","type":"entity","entityType":"INStore"},
                    {"name":"note","type":"string"}],
      "combinations":[{"parameters":["item","size"],"summary":"Order a ${size} ${item}"}]}]}
    """

    /// The new intent with `parameters` (JSON array text) migrating the legacy one.
    static func newJSON(_ parameters: String) -> String {
        """
        {"app":"com.example.coffee","intents":[{"name":"OrderCoffeeIntent","migratesFrom":"LegacyOrderCoffeeIntent",
          "parameters":\(parameters),
          "combinations":[{"parameters":["item"],"summary":"Order a ${item}"}]}]}
        """
    }

    static func compare(_ parameters: String, detectRenames: Bool = true) throws -> SchemaCompatibilityReport {
        let legacy = try IntentDefinitionSet.parse(legacyJSON)[0]
        let new = try IntentDefinitionSet.parse(newJSON(parameters))[0]
        return SchemaCompatibility.compare(legacy: legacy, new: new, detectRenames: detectRenames)
    }

    // MARK: Allowed changes

    @Test func allowedChangesKeepTheMigrationCompatible() throws {
        // size gains a case and becomes required, shots widens to double, the store
        // entity gets a new type name, note is removed, temperature is added as a bool.
        let report = try Self.compare("""
        [{"name":"item","type":"string","optional":false},
         {"name":"size","type":"enum","cases":["small","large","venti"],"optional":false},
         {"name":"shots","type":"double"},
         {"name":"store","type":"entity","entityType":"StoreEntity"},
         {"name":"iced","type":"bool"}]
        """)
        #expect(report.isCompatible)
        #expect(report.changes.map(\.description) == [
            "parameter \"size\": enum cases added: venti",
            "parameter \"size\" is now required (was optional)",
            "parameter \"shots\" widened from int to double",
            "parameter \"store\": entity type INStore is now StoreEntity (entities keep their identifiers)",
            "parameter \"iced\" added (bool, optional)",
            "parameter \"note\" removed (was string)",
        ])
    }

    @Test func identicalParametersHaveNoChanges() throws {
        let same = """
        [{"name":"item","type":"string","optional":false},{"name":"size","type":"enum","cases":["large","small"]},
         {"name":"shots","type":"int"},{"name":"store","type":"entity","entityType":"INStore"},{"name":"note","type":"string"}]
        """
        let report = try Self.compare(same)
        #expect(report.isCompatible && report.changes.isEmpty)
        #expect(report.description.hasSuffix("same parameters and types"))
    }

    // MARK: Refused changes

    @Test func aRenamedParameterIsReportedAsLikelyRename() throws {
        let report = try Self.compare("""
        [{"name":"item","type":"string","optional":false},{"name":"cupSize","type":"enum","cases":["small","large"]},
         {"name":"shots","type":"int"},{"name":"store","type":"entity","entityType":"INStore"},{"name":"note","type":"string"}]
        """)
        #expect(!report.isCompatible)
        #expect(report.incompatibilities.count == 1)
        let change = try #require(report.incompatibilities.first)
        #expect(change.parameter == "size")
        #expect(change.description == "parameter \"size\" was removed and \"cupSize\" (same type enum(small|large)) added: likely a rename of \"size\" to \"cupSize\"; parameters must keep their names")

        // Declared intentional: removal plus addition, both allowed.
        let relaxed = try Self.compare("""
        [{"name":"item","type":"string","optional":false},{"name":"cupSize","type":"enum","cases":["small","large"]},
         {"name":"shots","type":"int"},{"name":"store","type":"entity","entityType":"INStore"},{"name":"note","type":"string"}]
        """, detectRenames: false)
        #expect(relaxed.isCompatible)
        #expect(relaxed.changes.map(\.parameter) == ["cupSize", "size"])
    }

    @Test(arguments: [
        (#"{"name":"size","type":"int"}"#, "size", "parameter \"size\" changed type from enum(small|large) to int"),
        (#"{"name":"size","type":"enum","cases":["large","venti"]}"#, "size", "parameter \"size\": enum cases removed: small (legacy donations may hold them)"),
        (#"{"name":"item","type":"string","optional":true}"#, "item", "parameter \"item\" is now optional (was required); only optional -> required is allowed"),
        (#"{"name":"shots","type":"string"}"#, "shots", "parameter \"shots\" changed type from int to string"),
    ])
    func incompatibleChangesNameTheParameter(changed: String, parameter: String, message: String) throws {
        var parameters = [
            #"{"name":"item","type":"string","optional":false}"#, #"{"name":"size","type":"enum","cases":["small","large"]}"#,
            #"{"name":"shots","type":"int"}"#, #"{"name":"store","type":"entity","entityType":"INStore"}"#, #"{"name":"note","type":"string"}"#,
        ]
        let index = try #require(parameters.firstIndex { $0.contains("\"\(parameter)\"") })
        parameters[index] = changed
        let report = try Self.compare("[" + parameters.joined(separator: ",") + "]")
        #expect(report.incompatibilities.map(\.parameter) == [parameter])
        #expect(report.incompatibilities.map(\.description) == [message])
    }

    // MARK: Plans

    @Test func anIncompatiblePlanIsRefusedNamingTheParameter() throws {
        let plan = MigrationPlan(legacy: try IntentDefinitionSet.parse(Self.legacyJSON),
                                 new: try IntentDefinitionSet.parse(Self.newJSON(#"[{"name":"item","type":"string","optional":false},{"name":"size","type":"int"}]"#)))
        #expect(!plan.isApplicable)
        let error = #expect(throws: MigrationError.self) { try plan.apply(to: []) }
        #expect(error?.parameter == "size")
        #expect(error?.description == "OrderCoffeeIntent.size: incompatible with legacy LegacyOrderCoffeeIntent: parameter \"size\" changed type from enum(small|large) to int")
    }

    @Test func aPlanNeedsTheLegacyDefinitionAndSomethingToMigrate() throws {
        let missing = MigrationPlan(legacy: [], new: try IntentDefinitionSet.parse(Self.newJSON(#"[{"name":"item","type":"string"}]"#)))
        #expect(missing.refusal?.reason.hasPrefix("migrates LegacyOrderCoffeeIntent of com.example.coffee, which the legacy definitions do not define") == true)
        let nothing = MigrationPlan(legacy: try IntentDefinitionSet.parse(Self.legacyJSON),
                                    new: [IntentDefinition(app: "com.example.coffee", name: "OrderCoffeeIntent")])
        #expect(nothing.refusal?.reason == "no new intent declares migratesFrom, so there is nothing to migrate")
    }

    @Test func applyingMapsLegacyDonationsShortcutsAndWidgetsOntoTheNewIntent() throws {
        let legacy = try IntentDefinitionSet.parse(Self.legacyJSON)
        let new = try IntentDefinitionSet.parse(Self.newJSON("""
        [{"name":"item","type":"string","optional":false},{"name":"size","type":"enum","cases":["small","large"]}]
        """))
        let other = IntentDefinition(app: "com.example.weather", name: "CheckWeatherIntent")
        let plan = MigrationPlan(legacy: legacy, new: new)
        #expect(plan.isApplicable)
        let stored = try plan.apply(to: legacy + [other])
        #expect(stored.map(\.name) == ["CheckWeatherIntent", "OrderCoffeeIntent"])   // legacy definition replaced

        let resolver = TargetResolver(definitions: try IntentDefinitionSet(stored))
        let date = Date(timeIntervalSince1970: 1_795_000_000)
        let values: [String: ParameterValue] = ["item": .string("latte"), "size": .string("large"), "note": .string("oat")]
        let old = resolver.target(for: Donation(app: "com.example.coffee", intent: "LegacyOrderCoffeeIntent", parameters: values, date: date))
        let current = resolver.target(for: Donation(app: "com.example.coffee", intent: "OrderCoffeeIntent", parameters: values, date: date))
        #expect(old == current)
        #expect(old.key.rawValue == "com.example.coffee:OrderCoffeeIntent(item=latte)")
        // A relevant shortcut or widget configuration naming the legacy intent resolves the same way.
        #expect(resolver.target(app: "com.example.coffee", intent: "LegacyOrderCoffeeIntent", parameters: ["item": .string("latte")]).key == current.key)
    }
}

@Suite("Intent definitions written as JSON")
struct IntentDefinitionJSONTests {
    @Test func definitionsRoundTripThroughTheirJSON() throws {
        let definitions = try IntentDefinitionSet.parse(MigrationTests.legacyJSON) + [
            IntentDefinition(app: "com.example.messages", name: "SendMessageIntent",
                             parameters: [ParameterDefinition(name: "recipient", type: .entity(type: "Person"), isOptional: false),
                                          ParameterDefinition(name: "urgent", type: .bool), ParameterDefinition(name: "at", type: .date),
                                          ParameterDefinition(name: "n", type: .double)],
                             combinations: [ParameterCombination(parameters: ["recipient"], summary: "Message ${recipient}")],
                             isEligibleForSuggestions: false, widgetKind: "com.example.messages.people",
                             migratesFrom: "LegacySendIntent", kind: "sendMessage"),
        ]
        let text = JSONWriter.string(IntentDefinitionSet.json(definitions))
        #expect(try IntentDefinitionSet.parse(text) == definitions)
    }
}
