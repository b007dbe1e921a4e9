import Foundation
import Testing
import ProactiveCore
@testable import ProactiveModels

/// A legacy intent's history keeps predicting once a new intent migrates it.
///
/// The model is the profile model (`ProfileTrainer`, default configuration);
/// the weights per target are also counted directly from the `TrainingSet`
/// to show old and new donations land on one target.
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

    /// The profile model's ranking at `date`, best first.
    static func ranking(_ training: TrainingSet, at date: Date) throws -> [TargetKey] {
        try ProfileTrainer().fit(training).scores(at: Moment(date: date, utcOffset: offset)).map(\.target)
    }

    /// Total donation weight per target.
    static func weights(_ training: TrainingSet) -> [TargetKey: Double] {
        training.events.reduce(into: [:]) { $0[$1.target, default: 0] += $1.weight }
    }

    @Test func thirtyDaysOfLegacyDonationsKeepTheirTopTargetAfterMigration() throws {
        let legacy = try IntentDefinitionSet.parse(Self.legacyDefinitions)
        let morning = Self.firstDay.addingTimeInterval(30 * 86_400 + 7 * 3600 + 45 * 60)   // day 31, 07:45
        let afternoon = Self.firstDay.addingTimeInterval(30 * 86_400 + 15 * 3600 + 10 * 60)

        let before = TrainingSet(donations: Self.legacyHistory, resolver: TargetResolver(definitions: try IntentDefinitionSet(legacy)))
        let topMorningBefore = try #require(try Self.ranking(before, at: morning).first)
        let topAfternoonBefore = try #require(try Self.ranking(before, at: afternoon).first)
        #expect(topMorningBefore.rawValue == "com.example.coffee:LegacyOrderCoffeeIntent(item=latte,size=large)")
        #expect(topAfternoonBefore.rawValue == "com.example.coffee:LegacyOrderCoffeeIntent(item=espresso,size=small)")
        #expect(Self.weights(before)[topMorningBefore] == 30)

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
        let topMorningAfter = try #require(try Self.ranking(after, at: morning).first)
        #expect(topMorningAfter == migrated(topMorningBefore))
        #expect(Self.weights(after)[topMorningAfter] == 33)
        #expect(try Self.ranking(after, at: afternoon).first == migrated(topAfternoonBefore))
        #expect(Set(after.targets.keys).count == 2)
        #expect(after.targets[topMorningAfter]?.summary == "Order a large latte")

        // Without the migration the new donations would not join the history: with no definition
        // every parameter counts (the date too), so each new order is a target of its own.
        let unmigrated = TrainingSet(donations: Self.legacyHistory + newOrders, resolver: TargetResolver(definitions: try IntentDefinitionSet(legacy)))
        #expect(Set(unmigrated.targets.keys).count == 2 + 3)
        #expect(Self.weights(unmigrated).values.sorted() == [1, 1, 1, 20, 30])
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
