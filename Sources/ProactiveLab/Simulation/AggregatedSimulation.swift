import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - Aggregated context rows

/// Generates logs of aggregated context rows with usage counts and no order,
/// deterministically from a seed: the shape of datasets that record, per user,
/// "on this weekday, in this part of the day, at this place and in this
/// weather, app A was used n times" rather than a time line of launches.
///
/// Each row is one distinct (weekday, part of day, place, weather, app) of a
/// user, with `count` the uses it stands for (docs/FORMATS.md). Rows have no
/// order: each gets a date in a random week of the span, on its weekday, at a
/// random minute inside its part of the day, so date order carries no
/// sequence information (no previous app, no habit change).
///
/// How a user is drawn:
/// - **Apps.** A population catalogue of `catalogueSize` apps in categories
///   (mail, video, maps, ...) with a Zipf popularity. A user uses a few dozen
///   apps, most picked from the catalogue by popularity (so apps are shared
///   across users), a few private to them. The user's preference is a Zipf
///   over the apps in an order that follows the population's popularity
///   loosely: many apps, few used often.
/// - **Context.** Mild: each category leans toward places, parts of the day,
///   weekends and weather by factors between about 0.4 and 2 (mail at work on
///   weekday mornings, video at home in the evening, maps away from home), with
///   a per-app jitter. The user's own mix of places, weather and parts of the
///   day is drawn too.
/// - **Counts.** Heavy-tailed: a row's count is `floor(intensity × U^(-1/2))`
///   (a Pareto tail of exponent 2, at least 1; rows that fall in the same cell
///   add up), with a per-app intensity (log-normal, σ 0.3), so most rows are 1,
///   a few are large, and counting uses ranks a little worse than counting rows.
///
/// On this shape the most-frequently-used baseline is strong, as on the real
/// dataset it imitates (docs/RESULTS.md gives the figures).
///
/// ```swift
/// let rows = AggregatedSimulation(AggregatedSimulationConfiguration(users: 300, rowsPerUser: 100, seed: 7)).donations()
/// ```
public struct AggregatedSimulationConfiguration: Sendable, Hashable {
    public var users: Int
    /// Mean rows per user (each user's number is drawn around it, log-normal).
    public var rowsPerUser: Double
    public var seed: UInt64
    /// The span the dates are spread over; whole weeks of it are used.
    public var days: Int
    /// Midnight (UTC) of the first day; default 2026-01-05, a Monday.
    public var start: Date
    /// Apps in the population catalogue.
    public var catalogueSize: Int

    /// - Precondition: `users >= 0`, `rowsPerUser >= 1`, `days >= 7`, `catalogueSize >= 1`.
    public init(users: Int, rowsPerUser: Double = 100, seed: UInt64, days: Int = 84,
                start: Date = Date(timeIntervalSince1970: 1_767_571_200), catalogueSize: Int = 240) {
        precondition(users >= 0 && rowsPerUser >= 1 && rowsPerUser.isFinite && days >= 7 && catalogueSize >= 1)
        self.users = users
        self.rowsPerUser = rowsPerUser
        self.seed = seed
        self.days = days
        self.start = start
        self.catalogueSize = catalogueSize
    }
}

public struct AggregatedSimulation: Sendable {
    public let configuration: AggregatedSimulationConfiguration
    /// The population's apps, most popular first.
    public let catalogue: [CatalogueApp]

    public init(_ configuration: AggregatedSimulationConfiguration) {
        self.configuration = configuration
        catalogue = Self.makeCatalogue(size: configuration.catalogueSize, seed: configuration.seed)
    }

    /// The parts of the day, with their local hours [from, to).
    public static let dayParts: [(name: String, from: Int, to: Int)] =
        [("night", 0, 6), ("morning", 6, 12), ("afternoon", 12, 18), ("evening", 18, 24)]
    public static let places = ["home", "work", "other"]
    public static let weathers = ["sunny", "cloudy", "rainy"]

    /// Every user's rows, sorted by date (ties by user, then generation order).
    public func donations() -> [Donation] {
        Self.dateOrdered(users: configuration.users, rows(forUser:))
    }

    /// One user's rows in the order they were generated (their dates are not in that order).
    public func rows(forUser index: Int) -> [Donation] {
        var random = SeededGenerator.derived(seed: configuration.seed, UInt64(index) &* 2 &+ 0xA66)
        let user = UserDraw(index: index, catalogue: catalogue, &random)
        let wanted = max(5, Int((configuration.rowsPerUser * exp(0.5 * random.gaussian() - 0.125)).rounded()))
        let weeks = configuration.days / 7
        return Self.distinctCells(wanted: wanted) {
            let cell = user.drawCell(&random)
            return (cell, user.drawCount(app: cell.app, &random))
        } row: { cell, count in
            let part = Self.dayParts[cell.part]
            let week = random.integer(in: 0...(weeks - 1))
            let minute = part.from * 60 + random.integer(in: 0...((part.to - part.from) * 60 - 1))
            let seconds = Double((week * 7 + cell.weekday) * 86_400 + minute * 60)
            return Donation(user: user.name, app: user.apps[cell.app], intent: Donation.openIntent,
                            date: configuration.start.addingTimeInterval(seconds), utcOffset: 0,
                            context: ["daypart": part.name, "place": Self.places[cell.place], "weather": Self.weathers[cell.weather]],
                            count: count)
        }
    }

    /// Every user's rows (`rows(index)` for index 0 ..< `users`), sorted by date, ties by user, then by
    /// the order `rows` gave them in.
    static func dateOrdered(users: Int, _ rows: (Int) -> [Donation]) -> [Donation] {
        var all: [Donation] = []
        for index in 0..<users { all += rows(index) }
        return all.enumerated().sorted {
            ($0.element.date, $0.element.user, $0.offset) < ($1.element.date, $1.element.user, $1.offset)
        }.map(\.element)
    }

    /// One user's rows: draws (cell, count) pairs with `draw` until `wanted` distinct cells are found or
    /// `wanted` x 50 draws are spent (a user with few apps and contexts may have fewer cells than wanted).
    /// A new cell becomes a row through `row` (called once per cell, right after its first draw); a draw
    /// that falls on a known cell adds its count to that row's (at most `Int32.max`).
    static func distinctCells(wanted: Int, draw: () -> (Cell, Int), row: (Cell, Int) -> Donation) -> [Donation] {
        var rows: [Donation] = []
        var rowOfCell: [Cell: Int] = [:]
        var draws = 0
        while rows.count < wanted, draws < wanted * 50 {
            draws += 1
            let (cell, count) = draw()
            if let existing = rowOfCell[cell] {
                rows[existing].count = min(rows[existing].count + count, Int(Int32.max))
                continue
            }
            rowOfCell[cell] = rows.count
            rows.append(row(cell, count))
        }
        return rows
    }
}

// MARK: - The population's apps

/// One app of the population catalogue and how its category leans on context.
public struct CatalogueApp: Sendable, Hashable {
    public var app: String
    public var category: String
    /// Relative popularity across the population (Zipf over the catalogue).
    public var popularity: Double
    /// Multipliers by place (home, work, other), part of the day (night,
    /// morning, afternoon, evening), weather (sunny, cloudy, rainy), and on weekends.
    public var place: [Double]
    public var part: [Double]
    public var weather: [Double]
    public var weekend: Double
}

extension AggregatedSimulation {
    /// Category leanings: place (home, work, other), part (night, morning, afternoon, evening), weather, weekend.
    static let categories: [(name: String, place: [Double], part: [Double], weather: [Double], weekend: Double)] = [
        ("messages", [1, 1, 1], [0.8, 1, 1, 1.1], [1, 1, 1], 1),
        ("mail", [0.7, 2, 0.8], [0.4, 1.6, 1.3, 0.6], [1, 1, 1], 0.4),
        ("social", [1.1, 0.8, 1], [1.3, 0.8, 1, 1.3], [0.9, 1, 1.1], 1.2),
        ("video", [1.7, 0.4, 0.7], [1.3, 0.5, 0.8, 1.8], [0.8, 1, 1.4], 1.4),
        ("music", [0.8, 1, 1.7], [0.6, 1.4, 1, 1], [1, 1, 1], 1),
        ("maps", [0.5, 0.6, 2.2], [0.5, 1.2, 1.1, 0.9], [1.2, 1, 0.8], 1.4),
        ("news", [1.1, 1, 0.9], [0.7, 1.8, 0.9, 0.8], [1, 1, 1], 1),
        ("game", [1.5, 0.5, 0.9], [1.6, 0.6, 0.9, 1.4], [0.8, 1, 1.3], 1.3),
        ("shop", [1.2, 0.7, 1.1], [0.9, 0.8, 1, 1.3], [1, 1, 1.1], 1.4),
        ("bank", [1, 1, 1], [0.6, 1.1, 1.2, 1], [1, 1, 1], 0.8),
        ("fitness", [0.9, 0.4, 1.8], [0.4, 1.7, 1, 0.9], [1.4, 1, 0.6], 1.5),
        ("food", [1.1, 1, 0.9], [0.6, 0.6, 1.5, 1.4], [0.9, 1, 1.2], 1.2),
        ("photos", [0.8, 0.6, 1.9], [0.5, 1, 1.2, 1.1], [1.4, 1, 0.7], 1.6),
        ("browser", [1, 1, 1], [1, 1, 1, 1], [1, 1, 1], 1),
        ("office", [0.6, 2.2, 0.6], [0.3, 1.5, 1.5, 0.5], [1, 1, 1], 0.3),
        ("weather", [1.2, 0.8, 1], [0.6, 1.9, 0.8, 0.8], [0.8, 1.1, 1.3], 1),
        ("travel", [0.7, 0.5, 2], [0.6, 1.2, 1.1, 0.9], [1.1, 1, 0.9], 1.5),
        ("books", [1.6, 0.5, 0.9], [1.5, 0.7, 0.8, 1.4], [0.9, 1, 1.2], 1.2),
        ("calendar", [0.9, 1.8, 0.7], [0.5, 1.7, 1.1, 0.8], [1, 1, 1], 0.5),
        ("camera", [0.8, 0.6, 1.9], [0.5, 1, 1.2, 1.1], [1.3, 1, 0.8], 1.5),
    ]

    static func makeCatalogue(size: Int, seed: UInt64) -> [CatalogueApp] {
        var random = SeededGenerator.derived(seed: seed, 0xCA7A_1061)
        var apps: [CatalogueApp] = []
        apps.reserveCapacity(size)
        for rank in 0..<size {
            let category = categories[random.integer(in: 0...(categories.count - 1))]
            // A per-app jitter around the category's leaning keeps apps of one category apart.
            func jitter(_ values: [Double]) -> [Double] { values.map { $0 * exp(random.gaussian(deviation: 0.15)) } }
            apps.append(CatalogueApp(app: "com.\(category.name).app\(String(format: "%03d", rank))", category: category.name,
                                     popularity: 1 / pow(Double(rank + 1), 0.9), place: jitter(category.place),
                                     part: jitter(category.part), weather: jitter(category.weather),
                                     weekend: category.weekend * exp(random.gaussian(deviation: 0.15))))
        }
        return apps
    }
}

// MARK: - One user

/// A row's identity: the context cell and the app (an index into the user's apps).
struct Cell: Hashable {
    var weekday: Int
    var part: Int
    var place: Int
    var weather: Int
    var app: Int
}

/// One simulated user's apps, preferences and context mix.
struct UserDraw {
    let name: String
    var apps: [String] = []
    var preference: [Double] = []
    /// Per app: the catalogue entry whose leanings it follows.
    var leanings: [CatalogueApp] = []
    var intensity: [Double] = []
    var placeMix: [Double]
    var weatherMix: [Double]
    var partMix: [Double]
    var weekendActivity: Double

    init(index: Int, catalogue: [CatalogueApp], _ random: inout SeededGenerator) {
        name = String(format: "user%04d", index)
        // How many apps: a few dozen, heavy-tailed.
        let appCount = min(8 + Int((18 * exp(0.6 * random.gaussian())).rounded()), catalogue.count + 30)
        let privateCount = Int((Double(appCount) * 0.15 * random.unit() * 2).rounded(.down))
        var chosen: [Int] = []
        var available = Array(catalogue.indices)
        while chosen.count < appCount - privateCount, !available.isEmpty {
            let position = random.pick(available.indices.map { ($0, catalogue[available[$0]].popularity) })
            chosen.append(available.remove(at: position))
        }
        // Preference order: the population's popularity, loosely (Gumbel noise on the log popularity).
        var keyed: [(key: Double, entry: CatalogueApp, app: String)] = chosen.map { index in
            (log(catalogue[index].popularity) - log(-log(max(random.unit(), 0x1p-53))) * 1.2, catalogue[index], catalogue[index].app)
        }
        for own in 0..<(appCount - chosen.count) {
            // A private app leans like a random catalogue app; its key is drawn around the middle.
            let template = catalogue[random.integer(in: 0...(catalogue.count - 1))]
            keyed.append((log(0.05) - log(-log(max(random.unit(), 0x1p-53))) * 1.2, template,
                          "com.private.\(name).app\(own)"))
        }
        keyed.sort { $0.key > $1.key }
        // Zipf-Mandelbrot: 1 / (rank + 1)^s with s in 1.2...1.4, a head of a few comparable apps, then a long tail.
        let exponent = 1.2 + 0.2 * random.unit()
        for (rank, item) in keyed.enumerated() {
            apps.append(item.app)
            leanings.append(item.entry)
            preference.append(1 / pow(Double(rank + 2), exponent))
            intensity.append(exp(0.3 * random.gaussian()))
        }
        func mix(_ base: [Double], spread: Double) -> [Double] {
            base.map { $0 * exp(random.gaussian(deviation: spread)) }
        }
        placeMix = mix([0.5, random.chance(0.8) ? 0.3 : 0.03, 0.2], spread: 0.4)
        weatherMix = mix([0.5, 0.3, 0.2], spread: 0.4)
        partMix = mix([0.1, 0.3, 0.3, 0.3], spread: 0.3)
        weekendActivity = exp(random.gaussian(deviation: 0.3))
    }

    /// A context cell and an app: p(context) × p(app | context), the latter the
    /// preference times the app's leanings in that context.
    func drawCell(_ random: inout SeededGenerator) -> Cell {
        let weekday = random.pick((0..<7).map { ($0, $0 >= 5 ? weekendActivity : 1.0) })
        let weekend = weekday >= 5
        let part = random.pick(partMix.indices.map { ($0, partMix[$0]) })
        // Little work at weekends.
        let place = random.pick(placeMix.indices.map { ($0, placeMix[$0] * ($0 == 1 && weekend ? 0.15 : 1)) })
        let weather = random.pick(weatherMix.indices.map { ($0, weatherMix[$0]) })
        let app = random.pick(apps.indices.map { index -> (Int, Double) in
            let lean = leanings[index]
            return (index, preference[index] * lean.place[place] * lean.part[part] * lean.weather[weather]
                * (weekend ? lean.weekend : 1))
        })
        return Cell(weekday: weekday, part: part, place: place, weather: weather, app: app)
    }

    /// A heavy-tailed count: most 1, a few large (Pareto tail, exponent 2, scaled by the app's intensity).
    func drawCount(app: Int, _ random: inout SeededGenerator) -> Int {
        let pareto = pow(max(random.unit(), 1e-12), -1 / 2.0)
        return max(1, min(Int((intensity[app] * pareto).rounded(.down)), 100_000))
    }
}
