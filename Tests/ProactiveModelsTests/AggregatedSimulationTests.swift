import Foundation
import ProactiveCore
@testable import ProactiveLab
@testable import ProactiveModels
import Testing

@Suite("Aggregated context rows simulator")
struct AggregatedSimulationTests {
    static let configuration = AggregatedSimulationConfiguration(users: 30, rowsPerUser: 100, seed: 11, days: 84)

    @Test func theSameSeedGivesTheSameRows() {
        let first = AggregatedSimulation(Self.configuration).donations()
        #expect(first == AggregatedSimulation(Self.configuration).donations())
        var other = Self.configuration
        other.seed = 12
        #expect(first != AggregatedSimulation(other).donations())
        #expect(zip(first, first.dropFirst()).allSatisfy { $0.date <= $1.date })
        #expect(first.prefix(50).allSatisfy { (try? DonationLineCodec.decode(DonationLineCodec.encode($0))) == $0 })
    }

    @Test func countsArePositiveAndHeavyTailed() {
        let rows = AggregatedSimulation(Self.configuration).donations()
        #expect(rows.allSatisfy { $0.count >= 1 })
        let ones = rows.filter { $0.count == 1 }.count
        #expect(Double(ones) / Double(rows.count) > 0.4, "most rows stand for one use: \(ones) of \(rows.count)")
        #expect(rows.contains { $0.count >= 20 }, "a few rows are large")
    }

    /// Each row is a distinct (weekday, part of day, place, weather, app) of its user, dated on its
    /// weekday inside its part of the day and inside the span; users have about `rowsPerUser` rows.
    @Test func rowsHaveTheShapeOfContextCells() {
        let simulation = AggregatedSimulation(Self.configuration)
        let rows = simulation.donations()
        let clock = LocalClock()
        let end = Self.configuration.start.addingTimeInterval(Double(Self.configuration.days) * 86_400)
        var cells = Set<[String]>()
        for row in rows {
            let reading = clock.read(row.date, writtenOffset: row.utcOffset)
            let part = AggregatedSimulation.dayParts.first { $0.name == row.context["daypart"] }
            #expect(part != nil)
            if let part { #expect(reading.minuteOfDay >= Double(part.from * 60) && reading.minuteOfDay < Double(part.to * 60)) }
            #expect(AggregatedSimulation.places.contains(row.context["place"] ?? ""))
            #expect(AggregatedSimulation.weathers.contains(row.context["weather"] ?? ""))
            #expect(row.context.count == 3 && row.intent == Donation.openIntent)
            #expect(row.date >= Self.configuration.start && row.date < end)
            let key = [row.user, "\(reading.weekday)", row.context["daypart"]!, row.context["place"]!, row.context["weather"]!, row.app]
            #expect(!cells.contains(key), "one row per cell and app")
            cells.insert(key)
        }
        let users = Dictionary(grouping: rows, by: \.user)
        #expect(users.count == 30)
        let mean = Double(rows.count) / Double(users.count)
        #expect(mean > 80 && mean < 125, "mean rows per user \(mean)")
        // Apps are partly shared across users (the catalogue), partly private.
        let usersOfApp = Dictionary(grouping: rows, by: \.app).mapValues { Set($0.map(\.user)).count }
        #expect(usersOfApp.values.contains { $0 >= 10 })
        #expect(usersOfApp.keys.contains { $0.hasPrefix("com.private.") })
    }

    /// The order rows are generated in (which follows no time line either) leaves no trace in the
    /// dates: within a user, the rank correlation of generation order and date is near 0.
    @Test func datesCarryNoOrder() {
        let simulation = AggregatedSimulation(Self.configuration)
        var correlations: [Double] = []
        for index in 0..<Self.configuration.users {
            let rows = simulation.rows(forUser: index)
            guard rows.count >= 30 else { continue }
            let dateRank = Dictionary(uniqueKeysWithValues: rows.indices.sorted { rows[$0].date < rows[$1].date }.enumerated().map { ($1, Double($0)) })
            let n = Double(rows.count)
            let mean = (n - 1) / 2
            var covariance = 0.0, variance = 0.0
            for position in rows.indices {
                covariance += (Double(position) - mean) * (dateRank[position]! - mean)
                variance += (Double(position) - mean) * (Double(position) - mean)
            }
            correlations.append(covariance / variance)
        }
        #expect(correlations.count >= 20)
        let average = correlations.reduce(0, +) / Double(correlations.count)
        #expect(abs(average) < 0.06, "mean rank correlation \(average)")
        #expect(correlations.allSatisfy { abs($0) < 0.5 })
    }
}

@Suite("Aggregated rows of one reference week simulator")
struct AggregatedWeekSimulationTests {
    static let configuration = AggregatedWeekConfiguration(users: 120, seed: 11)

    @Test func theSameSeedGivesTheSameRows() {
        let first = AggregatedWeekSimulation(Self.configuration).donations()
        #expect(first == AggregatedWeekSimulation(Self.configuration).donations())
        var other = Self.configuration
        other.seed = 12
        #expect(first != AggregatedWeekSimulation(other).donations())
        #expect(zip(first, first.dropFirst()).allSatisfy { $0.date <= $1.date })
        #expect(first.prefix(50).allSatisfy { (try? DonationLineCodec.decode(DonationLineCodec.encode($0))) == $0 })
    }

    /// Every row lies in the one reference week, at the first minute of one of the seven parts of the
    /// day (its `daypart`), so most rows share their instant with other rows of their user; each row is
    /// a distinct (weekday, part, place, weather, app) of its user.
    @Test func rowsFallInOneWeekAtTheStartOfSevenParts() {
        let rows = AggregatedWeekSimulation(Self.configuration).donations()
        let start = Self.configuration.start
        var parts = Set<String>()
        var cells = Set<[String]>()
        for row in rows {
            let seconds = Int(row.date.timeIntervalSince(start))
            #expect(seconds >= 0 && seconds < 7 * 86_400, "in the reference week")
            let part = AggregatedWeekSimulation.dayParts.first { $0.name == row.context["daypart"] }
            #expect(part != nil)
            if let part { #expect(seconds % 86_400 == part.from * 3_600, "at the start of its part") }
            parts.insert(row.context["daypart"] ?? "")
            #expect(AggregatedSimulation.places.contains(row.context["place"] ?? ""))
            #expect(AggregatedSimulation.weathers.contains(row.context["weather"] ?? ""))
            #expect(row.context.count == 3 && row.intent == Donation.openIntent && row.utcOffset == 0)
            let key = [row.user, "\(seconds)", row.context["place"]!, row.context["weather"]!, row.app]
            #expect(!cells.contains(key), "one row per cell and app")
            cells.insert(key)
        }
        #expect(parts.count == 7 && AggregatedWeekSimulation.dayParts.count == 7)
        let instants = Dictionary(grouping: rows) { "\($0.user) \($0.date.timeIntervalSince1970)" }
        let shared = instants.values.filter { $0.count > 1 }.reduce(0) { $0 + $1.count }
        #expect(Double(shared) / Double(rows.count) > 0.8, "rows sharing their instant: \(shared) of \(rows.count)")
    }

    /// Counts: median 4, from 1 to thousands on this small instance (tens of thousands on 585 users).
    @Test func countsHaveMedianFourAndAHeavyTail() {
        let counts = AggregatedWeekSimulation(Self.configuration).donations().map(\.count).sorted()
        #expect(counts.first == 1)
        #expect((3...5).contains(counts[counts.count / 2]), "median \(counts[counts.count / 2])")
        #expect(counts.last! >= 5_000, "largest \(counts.last!)")
    }

    /// Users: a sixth under 20 rows; apps: thousands, shared across users by popularity; after a random
    /// 80/20 split, about a tenth of the test rows are apps their user never used in training.
    @Test func usersAppsAndTestSideNewApps() {
        let rows = AggregatedWeekSimulation(Self.configuration).donations()
        let users = Dictionary(grouping: rows, by: \.user)
        #expect(users.count == 120)
        let small = users.values.filter { $0.count < 20 }.count
        #expect(small >= 10 && small <= 32, "users under 20 rows: \(small) of 120")
        let usersOfApp = Dictionary(grouping: rows, by: \.app).mapValues { Set($0.map(\.user)).count }
        #expect(usersOfApp.count >= 500, "apps \(usersOfApp.count)")
        #expect(usersOfApp.values.contains { $0 >= 40 }, "a popular app used by a third of the users or more")
        let split = LogSplit(rows, method: .random(seed: 7), trainShare: 0.8)
        var trained: [String: Set<String>] = [:]
        for row in split.train { trained[row.user, default: []].insert(row.app) }
        let new = split.test.filter { !(trained[$0.user]?.contains($0.app) ?? false) }.count
        let share = Double(new) / Double(split.test.count)
        #expect(share > 0.06 && share < 0.16, "test rows of apps new to their user: \(new) of \(split.test.count)")
    }
}
