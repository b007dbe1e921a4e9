import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - Aggregated rows of one reference week

/// Generates logs of aggregated context rows that all fall in one reference
/// week, deterministically from a seed: the shape of datasets that keep, per
/// user, "on this weekday, in this part of the day, at this place and in this
/// weather, app A was used n times", each row dated at the start of its part of
/// the day, so that many rows share one instant.
///
/// Each row is one distinct (weekday, part of day, place, weather, app) of a
/// user with `count` the uses it stands for (docs/FORMATS.md). Compared with
/// `AggregatedSimulation`:
/// - **One week, seven parts of the day.** A row is dated on its weekday of the
///   week that begins at `start`, at the first minute of its part of the day
///   (`dayParts`: night, early morning, morning, midday, afternoon, evening,
///   late evening), UTC; a user's rows of one weekday and part share that
///   instant and follow each other in a random order.
/// - **Thousands of apps.** A catalogue of `catalogueSize` apps with a Zipf
///   popularity (exponent `catalogueExponent`) shared by every user; a user's
///   apps are drawn from it by popularity, more of them the more rows the user
///   has, with a Zipf preference over an order that follows the popularity
///   loosely; apps of the long tail are used in one row only, so a random split
///   leaves test rows of apps the user never used in training.
/// - **Counts from 1 to tens of thousands.** A row's count is
///   `countMedian × (p_app / p̄)^countPreference × exp(σ_app·z_app + σ_row·z_row)`
///   rounded down, at least 1: `p_app` the user's preference for the app and `p̄`
///   the geometric mean of the preference over the user's uses, so the apps a user
///   prefers fill more rows and larger ones; `σ_app² + σ_row² = countSpread²`,
///   half of the variance per (user, app) and half per row.
/// - **Uneven users.** Rows per user are log-normal around `rowsPerUser` with a
///   deviation of `rowsSpread` in the logarithm, at least 2: with the defaults a
///   sixth of users have fewer than 20 rows.
/// - **Context** leans as in `AggregatedSimulation` (the same category leanings;
///   each of the seven parts takes the leaning of the quarter of the day it starts in).
///
/// ```swift
/// let rows = AggregatedWeekSimulation(AggregatedWeekConfiguration(users: 300, seed: 7)).donations()
/// ```
public struct AggregatedWeekConfiguration: Sendable, Hashable {
    public var users: Int
    /// Mean rows per user.
    public var rowsPerUser: Double
    /// Deviation of the logarithm of a user's rows (log-normal around `rowsPerUser`).
    public var rowsSpread: Double
    public var seed: UInt64
    /// Midnight (UTC) of the reference week's first day; default 2026-01-05, a Monday.
    public var start: Date
    /// Apps in the population catalogue.
    public var catalogueSize: Int
    /// Exponent of the catalogue's Zipf popularity, 1 / (rank + 1)^exponent.
    public var catalogueExponent: Double
    /// Median of a row's count before rounding down.
    public var countMedian: Double
    /// Deviation of the logarithm of a row's count around its app's scale.
    public var countSpread: Double
    /// How much an app's count scale follows the user's preference for it (0: not at all).
    public var countPreference: Double

    /// - Precondition: `users >= 0`, `rowsPerUser >= 2`, `catalogueSize >= 1`, `countMedian >= 1`,
    ///   `rowsSpread`, `countSpread`, `countPreference` and `catalogueExponent` in 0...5.
    public init(users: Int, rowsPerUser: Double = 110, rowsSpread: Double = 1.1, seed: UInt64,
                start: Date = Date(timeIntervalSince1970: 1_767_571_200), catalogueSize: Int = 4_000,
                catalogueExponent: Double = 0.7, countMedian: Double = 4, countSpread: Double = 1.8,
                countPreference: Double = 1) {
        precondition(users >= 0 && rowsPerUser >= 2 && rowsPerUser.isFinite && catalogueSize >= 1)
        precondition(countMedian >= 1 && countMedian.isFinite)
        precondition((0...5).contains(rowsSpread) && (0...5).contains(countSpread) && (0...5).contains(catalogueExponent)
                     && (0...5).contains(countPreference))
        self.users = users
        self.rowsPerUser = rowsPerUser
        self.rowsSpread = rowsSpread
        self.seed = seed
        self.start = start
        self.catalogueSize = catalogueSize
        self.catalogueExponent = catalogueExponent
        self.countMedian = countMedian
        self.countSpread = countSpread
        self.countPreference = countPreference
    }
}

public struct AggregatedWeekSimulation: Sendable {
    public let configuration: AggregatedWeekConfiguration
    /// The population's apps, most popular first.
    public let catalogue: [CatalogueApp]

    public init(_ configuration: AggregatedWeekConfiguration) {
        self.configuration = configuration
        var apps = AggregatedSimulation.makeCatalogue(size: configuration.catalogueSize, seed: configuration.seed)
        for rank in apps.indices { apps[rank].popularity = 1 / pow(Double(rank + 1), configuration.catalogueExponent) }
        catalogue = apps
    }

    /// The seven parts of the day, with their local hours [from, to), and the
    /// quarter of the day (`AggregatedSimulation.dayParts`) whose leanings each takes.
    public static let dayParts: [(name: String, from: Int, to: Int, quarter: Int)] = [
        ("night", 0, 6, 0), ("early-morning", 6, 9, 1), ("morning", 9, 12, 1), ("midday", 12, 14, 2),
        ("afternoon", 14, 17, 2), ("evening", 17, 21, 3), ("late-evening", 21, 24, 3),
    ]

    /// Every user's rows, sorted by date (ties by user, then generation order).
    public func donations() -> [Donation] {
        AggregatedSimulation.dateOrdered(users: configuration.users, rows(forUser:))
    }

    /// One user's rows in the order they were generated.
    public func rows(forUser index: Int) -> [Donation] {
        var random = SeededGenerator.derived(seed: configuration.seed, UInt64(index) &* 2 &+ 0x7EE4)
        let spread = configuration.rowsSpread
        let wanted = max(2, Int((configuration.rowsPerUser * exp(spread * random.gaussian() - spread * spread / 2)).rounded()))
        var user = WeekUserDraw(index: index, rows: wanted, catalogue: catalogue, configuration: configuration, &random)
        return AggregatedSimulation.distinctCells(wanted: wanted) {
            let cell = user.drawCell(&random)
            return (cell, user.drawCount(app: cell.app, &random))
        } row: { cell, count in
            let part = Self.dayParts[cell.part]
            let seconds = Double(cell.weekday * 86_400 + part.from * 3_600)
            return Donation(user: user.name, app: user.apps[cell.app], intent: Donation.openIntent,
                            date: configuration.start.addingTimeInterval(seconds), utcOffset: 0,
                            context: ["daypart": part.name, "place": AggregatedSimulation.places[cell.place],
                                      "weather": AggregatedSimulation.weathers[cell.weather]],
                            count: count)
        }
    }
}

// MARK: - One user of the week

/// One simulated user of the week shape: apps, preferences, count intensities and context mix.
struct WeekUserDraw {
    let name: String
    var apps: [String] = []
    var preference: [Double] = []
    var leanings: [CatalogueApp] = []
    /// Per app: the logarithm of its count scale.
    var logIntensity: [Double] = []
    let rowDeviation: Double
    var placeMix: [Double]
    var weatherMix: [Double]
    var partMix: [Double]
    var weekendActivity: Double
    /// Cumulative app weights per context (weekend, part, place, weather), filled as contexts are drawn.
    var cumulative: [Int: [Double]] = [:]

    init(index: Int, rows: Int, catalogue: [CatalogueApp], configuration: AggregatedWeekConfiguration,
         _ random: inout SeededGenerator) {
        name = String(format: "user%04d", index)
        // More rows, more apps: about 6 + 2.5 x sqrt(rows), log-normal around it.
        let appCount = min(catalogue.count, max(2, Int((Double(6) + 2.5 * Double(rows).squareRoot() * exp(0.4 * random.gaussian())).rounded())))
        // Popularity-weighted draws without replacement (Efraimidis-Spirakis keys: u^(1/w), the largest win).
        var keys: [(key: Double, index: Int)] = catalogue.indices.map {
            (log(max(random.unit(), 0x1p-53)) / catalogue[$0].popularity, $0)
        }
        keys.sort { $0.key > $1.key }
        let chosen = keys.prefix(appCount).map(\.index)
        // Preference order: the population's popularity, loosely (Gumbel noise on the log popularity).
        var keyed: [(key: Double, entry: CatalogueApp)] = chosen.map { index in
            (log(catalogue[index].popularity) - log(-log(max(random.unit(), 0x1p-53))) * 1.2, catalogue[index])
        }
        keyed.sort { $0.key > $1.key }
        let exponent = 1.1 + 0.3 * random.unit()
        let appDeviation = configuration.countSpread * 0.5.squareRoot()
        rowDeviation = appDeviation
        for (rank, item) in keyed.enumerated() {
            apps.append(item.entry.app)
            leanings.append(item.entry)
            preference.append(1 / pow(Double(rank + 2), exponent))
            logIntensity.append(log(configuration.countMedian) + appDeviation * random.gaussian())
        }
        // The count scale follows the preference around its mean over the user's uses.
        let total = preference.reduce(0, +)
        let meanLog = preference.reduce(0) { $0 + $1 * log($1) } / total
        for app in apps.indices { logIntensity[app] += configuration.countPreference * (log(preference[app]) - meanLog) }
        func mix(_ base: [Double], spread: Double) -> [Double] {
            base.map { $0 * exp(random.gaussian(deviation: spread)) }
        }
        placeMix = mix([0.5, random.chance(0.8) ? 0.3 : 0.03, 0.2], spread: 0.4)
        weatherMix = mix([0.5, 0.3, 0.2], spread: 0.4)
        partMix = mix([0.06, 0.14, 0.18, 0.14, 0.18, 0.18, 0.12], spread: 0.3)
        weekendActivity = exp(random.gaussian(deviation: 0.3))
    }

    /// A context cell and an app: p(context) × p(app | context), the latter the
    /// preference times the app's leanings in that context.
    mutating func drawCell(_ random: inout SeededGenerator) -> Cell {
        let weekday = random.pick((0..<7).map { ($0, $0 >= 5 ? weekendActivity : 1.0) })
        let weekend = weekday >= 5
        let part = random.pick(partMix.indices.map { ($0, partMix[$0]) })
        let place = random.pick(placeMix.indices.map { ($0, placeMix[$0] * ($0 == 1 && weekend ? 0.15 : 1)) })
        let weather = random.pick(weatherMix.indices.map { ($0, weatherMix[$0]) })
        let key = ((weekend ? 1 : 0) * 7 + part) * 9 + place * 3 + weather
        let sums: [Double]
        if let known = cumulative[key] {
            sums = known
        } else {
            let quarter = AggregatedWeekSimulation.dayParts[part].quarter
            var total = 0.0
            sums = apps.indices.map { index in
                let lean = leanings[index]
                total += preference[index] * lean.place[place] * lean.part[quarter] * lean.weather[weather]
                    * (weekend ? lean.weekend : 1)
                return total
            }
            cumulative[key] = sums
        }
        let threshold = random.unit() * sums[sums.count - 1]
        var low = 0, high = sums.count - 1
        while low < high {
            let middle = (low + high) / 2
            if sums[middle] > threshold { high = middle } else { low = middle + 1 }
        }
        return Cell(weekday: weekday, part: part, place: place, weather: weather, app: low)
    }

    /// A log-normal count: the app's scale times a per-row factor, rounded down, 1 to 1,000,000.
    func drawCount(app: Int, _ random: inout SeededGenerator) -> Int {
        let value = exp(logIntensity[app] + rowDeviation * random.gaussian())
        return max(1, min(Int(value.rounded(.down)), 1_000_000))
    }
}
