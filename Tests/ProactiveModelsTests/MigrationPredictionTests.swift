import Foundation
import Testing
import ProactiveCore
@testable import ProactiveModels

/// A legacy intent's history keeps predicting once a new intent migrates it.
///
/// The model here is an hour-of-day frequency count over a `TrainingSet`
/// (the profile models were not on main when this test was written): the
/// score of a target at a moment is its donation weight in that local hour.
@Suite("Migrated intents keep predicting")
struct MigrationPredictionTests {
    static let app = "com.example.coffee"
    static let offset = -8 * 3600
    /// 2026-10-01 00:00 local (UTC-8).
    static let firstDay = Date(timeIntervalSince1970: Double(Timestamp.daysFromCivil(year: 2026, month: 10, day: 1) * 86_400 - offset))

    static let legacyDefinitions = """
    {"app":"com.example.coffee","intents":[{"name":"LegacyOrderCoffeeIntent",
      "parameters":[{"name":"item","type":"string"},{"name":"size","type":"enum","cases":["small","large"]},{"name":"date","type":"date"}],
      "combinations":[{"parameters":["item","size"],"summary":"Order a ${size} ${item}"}]}]}
    """
    static let newDefinitions = """
    {"app":"com.example.coffee","intents":[{"name":"OrderCoffeeIntent","migratesFrom":"LegacyOrderCoffeeIntent",
      "parameters":[{"name":"item","type":"string"},{"name":"size","type":"enum","cases":["small","medium","large"]},
                    {"name":"date","type":"date"},{"name":"iced","type":"bool"}],
      "combinations":[{"parameters":["item","size"],"summary":"Order a ${size} ${item}"}]}]}
    """

    static func order(_ intent: String, day: Int, hour: Int, minute: Int, item: String, size: String) -> Donation {
        Donation(user: "me", app: app, intent: intent,
                 parameters: ["item": .string(item), "size": .string(size), "date": .string("2026-10-\(day + 1)")],
                 date: firstDay.addingTimeInterval(Double(day * 86_400 + hour * 3600 + minute * 60)), utcOffset: offset)
    }

    /// 30 days under the legacy intent: a large latte every morning around 07:30,
    /// a small espresso around 15:00 on two days out of three.
    static var legacyHistory: [Donation] {
        (0..<30).flatMap { day -> [Donation] in
            var orders = [order("LegacyOrderCoffeeIntent", day: day, hour: 7, minute: 20 + day % 20, item: "latte", size: "large")]
            if day % 3 != 0 { orders.append(order("LegacyOrderCoffeeIntent", day: day, hour: 15, minute: day % 30, item: "espresso", size: "small")) }
            return orders
        }
    }

    /// Weight per target in the moment's local hour, highest first (ties by key).
    static func ranking(_ training: TrainingSet, at date: Date) -> [(TargetKey, Double)] {
        let clock = LocalClock()
        let hour = Int(clock.read(date, writtenOffset: offset).minuteOfDay / 60)
        var weights: [TargetKey: Double] = [:]
        for event in training.events where Int(clock.read(event.date, writtenOffset: event.utcOffset).minuteOfDay / 60) == hour {
            weights[event.target, default: 0] += event.weight
        }
        return weights.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    @Test func thirtyDaysOfLegacyDonationsKeepTheirTopTargetAfterMigration() throws {
        let legacy = try IntentDefinitionSet.parse(Self.legacyDefinitions)
        let morning = Self.firstDay.addingTimeInterval(30 * 86_400 + 7 * 3600 + 45 * 60)   // day 31, 07:45
        let afternoon = Self.firstDay.addingTimeInterval(30 * 86_400 + 15 * 3600 + 10 * 60)

        let before = TrainingSet(donations: Self.legacyHistory, resolver: TargetResolver(definitions: try IntentDefinitionSet(legacy)))
        let topMorningBefore = try #require(Self.ranking(before, at: morning).first)
        let topAfternoonBefore = try #require(Self.ranking(before, at: afternoon).first)
        #expect(topMorningBefore.0.rawValue == "com.example.coffee:LegacyOrderCoffeeIntent(item=latte,size=large)")
        #expect(topMorningBefore.1 == 30)

        // Migrate, then let three days of new-intent donations arrive side by side with the old ones.
        let plan = MigrationPlan(legacy: legacy, new: try IntentDefinitionSet.parse(Self.newDefinitions))
        #expect(plan.isApplicable, "\(plan.reports)")
        let resolver = TargetResolver(definitions: try IntentDefinitionSet(try plan.apply(to: legacy)))
        let newOrders = (27..<30).map { Self.order("OrderCoffeeIntent", day: $0, hour: 7, minute: 50, item: "latte", size: "large") }
        let after = TrainingSet(donations: Self.legacyHistory + newOrders, resolver: resolver)

        // The same target, now named by the new intent, and one target for old and new donations.
        func migrated(_ key: TargetKey) -> TargetKey {
            let target = before.targets[key]!
            return TargetKey(app: target.app, intent: "OrderCoffeeIntent", parameters: target.parameters)
        }
        let topMorningAfter = try #require(Self.ranking(after, at: morning).first)
        #expect(topMorningAfter.0 == migrated(topMorningBefore.0))
        #expect(topMorningAfter.1 == 33)
        #expect(Self.ranking(after, at: afternoon).first?.0 == migrated(topAfternoonBefore.0))
        #expect(Set(after.targets.keys).count == 2)
        #expect(after.targets[topMorningAfter.0]?.summary == "Order a large latte")

        // Without the migration the new donations would not join the history: with no definition
        // every parameter counts (the date too), so each new order is a target of its own.
        let unmigrated = TrainingSet(donations: Self.legacyHistory + newOrders, resolver: TargetResolver(definitions: try IntentDefinitionSet(legacy)))
        #expect(Set(unmigrated.targets.keys).count == 2 + 3)
        #expect(Self.ranking(unmigrated, at: morning).first?.1 == 30)
    }

    @Test func anIncompatibleNewSchemaIsRefusedWithTheParameterNamed() throws {
        let renamed = Self.newDefinitions.replacingOccurrences(of: #"{"name":"size""#, with: #"{"name":"cupSize""#)
            .replacingOccurrences(of: #""item","size""#, with: #""item","cupSize""#)
            .replacingOccurrences(of: "${size}", with: "${cupSize}")
        let plan = MigrationPlan(legacy: try IntentDefinitionSet.parse(Self.legacyDefinitions), new: try IntentDefinitionSet.parse(renamed))
        let error = #expect(throws: MigrationError.self) { try plan.apply(to: []) }
        #expect(error?.parameter == "size")
        #expect(error?.description.contains("likely a rename of \"size\" to \"cupSize\"") == true)
    }
}
