import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - Routine simulator

/// Generates donation logs of people with daily routines, deterministically
/// from a seed: the same configuration always gives the same log.
///
/// Each simulated user (a `SimulatedPersona`) lives these routines on their
/// own local clock (a fixed UTC offset):
/// - wake-up: the weather for the home city, then often the news;
/// - weekdays: commute (transit departures, music) unless working from home,
///   work Focus hours with mail, chat and a calendar glance, a lunch order,
///   a message on the way home;
/// - evenings: media (a video app, which drifts to a podcast app from
///   `driftDay` on, when the lunch order also changes), the alarm at bedtime;
/// - weekends: later wake-up, a workout on Saturday, brunch on Sunday;
/// - noise: random opens of other apps, and habits skipped at random.
///
/// With `context`, donations carry `focus` (`work`, `sleep`, `personal`) and
/// `place` (`home`, `commute`, `work`, `gym`).
///
/// ```swift
/// let log = Simulation(SimulationConfiguration(users: 10, days: 60, seed: 7)).donations()
/// ```
public struct SimulationConfiguration: Sendable, Hashable {
    public var users: Int
    public var days: Int
    public var seed: UInt64
    /// Local midnight of day 0 as if at UTC; each user's offset shifts it.
    /// Default 2026-01-05 (a Monday).
    public var start: Date
    /// The day habits change (default: half way).
    public var driftDay: Int
    /// Mean number of random app opens per day.
    public var noisePerDay: Double
    /// Add `focus` and `place` context.
    public var context: Bool

    public init(users: Int, days: Int, seed: UInt64, start: Date = Date(timeIntervalSince1970: 1_767_571_200),
                driftDay: Int? = nil, noisePerDay: Double = 3, context: Bool = true) {
        precondition(users >= 0 && days >= 0 && noisePerDay >= 0)
        self.users = users
        self.days = days
        self.seed = seed
        self.start = start
        self.driftDay = driftDay ?? days / 2
        self.noisePerDay = noisePerDay
        self.context = context
    }
}

public struct Simulation: Sendable {
    public let configuration: SimulationConfiguration

    public init(_ configuration: SimulationConfiguration) { self.configuration = configuration }

    /// The personas, one per user.
    public var personas: [SimulatedPersona] {
        (0..<configuration.users).map { SimulatedPersona.draw(index: $0, seed: configuration.seed) }
    }

    /// Every user's donations, sorted by date (ties by user, then generation order).
    public func donations() -> [Donation] {
        var all: [Donation] = []
        for (index, persona) in personas.enumerated() { all += donations(for: persona, index: index) }
        return all.enumerated().sorted {
            ($0.element.date, $0.element.user, $0.offset) < ($1.element.date, $1.element.user, $1.offset)
        }.map(\.element)
    }

    /// One user's donations in date order.
    public func donations(for persona: SimulatedPersona, index: Int) -> [Donation] {
        var random = SeededGenerator.derived(seed: configuration.seed, UInt64(index) &* 2 &+ 1)
        var day = DayBuilder(persona: persona, configuration: configuration)
        for dayIndex in 0..<configuration.days {
            day.begin(dayIndex)
            day.live(&random)
        }
        return day.output.sorted { $0.date < $1.date }
    }
}

// MARK: - One day at a time

/// Writes the donations of one persona's days.
struct DayBuilder {
    let persona: SimulatedPersona
    let configuration: SimulationConfiguration
    private(set) var output: [Donation] = []
    private var dayIndex = 0
    private var weekday = 0

    init(persona: SimulatedPersona, configuration: SimulationConfiguration) {
        self.persona = persona
        self.configuration = configuration
    }

    mutating func begin(_ index: Int) {
        dayIndex = index
        let local = configuration.start.timeIntervalSince1970 + Double(index) * 86_400
        weekday = LocalClock().read(Date(timeIntervalSince1970: local)).weekday
    }

    var isWeekend: Bool { weekday >= 5 }
    var drifted: Bool { dayIndex >= configuration.driftDay }

    /// Adds a donation at a local minute of the current day.
    mutating func donate(_ minute: Double, _ app: String, _ intent: String = Donation.openIntent,
                         _ parameters: [String: ParameterValue] = [:], focus: String? = nil, place: String? = nil,
                         group: String? = nil) {
        let localSeconds = configuration.start.timeIntervalSince1970 + Double(dayIndex) * 86_400 + (minute * 60).rounded()
        var context: [String: String] = [:]
        if configuration.context {
            if let focus { context["focus"] = focus }
            if let place { context["place"] = place }
        }
        output.append(Donation(user: persona.user, app: app, intent: intent, parameters: parameters,
                               date: Date(timeIntervalSince1970: localSeconds - Double(persona.utcOffset)),
                               utcOffset: persona.utcOffset, group: group, context: context))
    }

    mutating func live(_ random: inout SeededGenerator) {
        let wake = persona.wakeMinute + (isWeekend ? persona.weekendDelay : 0) + random.gaussian(deviation: 12)
        let bed = persona.bedMinute + random.gaussian(deviation: 20)
        morning(wake, &random)
        if isWeekend { weekend(wake, &random) } else { workday(wake, &random) }
        evening(bed, &random)
        noise(from: wake + 15, to: bed - 10, &random)
    }

    // MARK: Routines

    mutating func morning(_ wake: Double, _ random: inout SeededGenerator) {
        let weather = persona.morningDonation
        if random.chance(0.92) {
            donate(wake + 2 + abs(random.gaussian(deviation: 3)), weather.app, weather.intent, weather.parameters,
                   focus: "personal", place: "home", group: persona.homeCity.keyText)
        }
        if random.chance(0.5) { donate(wake + 12 + abs(random.gaussian(deviation: 5)), "com.example.news", place: "home") }
    }

    mutating func workday(_ wake: Double, _ random: inout SeededGenerator) {
        let atHome = persona.homeOfficeDays.contains(weekday)
        let workPlace = atHome ? "home" : "work"
        let leave = wake + 65 + random.gaussian(deviation: 8)
        if !atHome {
            if random.chance(0.85) {
                donate(leave - 3, persona.transitApp, "CheckDeparturesIntent", ["station": persona.workStation], place: "home")
            }
            if random.chance(0.6) {
                donate(leave + 4, "com.example.music", "PlayMediaIntent", ["playlist": .string("commute")], place: "commute")
            }
        }
        let workStart = max(leave + 35, 8.5 * 60)
        if random.chance(0.55) { donate(workStart + 5, "com.example.calendar", focus: "work", place: workPlace) }
        for _ in 0..<random.integer(in: 3...6) {
            donate(workStart + random.unit() * (17.5 * 60 - workStart), persona.mailApp, focus: "work", place: workPlace)
        }
        for _ in 0..<random.integer(in: 2...5) {
            donate(workStart + random.unit() * (17.5 * 60 - workStart), persona.chatApp, focus: "work", place: workPlace)
        }
        if random.chance(0.75) {
            let item = drifted ? persona.lunchAfter : persona.lunchBefore
            donate(12 * 60 + 10 + random.gaussian(deviation: 12), persona.lunchApp, "OrderFoodIntent",
                   ["item": .string(item)], focus: "work", place: workPlace)
        }
        if random.chance(0.5) {
            donate(17.6 * 60 + abs(random.gaussian(deviation: 10)), "com.example.messages", "SendMessageIntent",
                   ["recipient": persona.partner], place: atHome ? "home" : "commute")
        }
    }

    mutating func weekend(_ wake: Double, _ random: inout SeededGenerator) {
        if weekday == 5, random.chance(0.7) {
            donate(wake + 90 + random.gaussian(deviation: 20), "com.example.fitness", "StartWorkoutIntent",
                   ["type": .string(persona.workout)], focus: "personal", place: "gym")
        }
        if weekday == 6, random.chance(0.6) {
            donate(11.5 * 60 + random.gaussian(deviation: 25), persona.lunchApp, "OrderFoodIntent",
                   ["item": .string("brunch")], focus: "personal", place: "home")
        }
        if random.chance(0.5) {
            donate(15 * 60 + random.gaussian(deviation: 60), "com.example.messages", "SendMessageIntent",
                   ["recipient": persona.partner], focus: "personal", place: "home")
        }
    }

    mutating func evening(_ bed: Double, _ random: inout SeededGenerator) {
        if random.chance(0.8) {
            let app = drifted ? persona.eveningAfter : persona.eveningBefore
            donate(20.5 * 60 + random.gaussian(deviation: 30), app, focus: "personal", place: "home")
        }
        if random.chance(0.7) { donate(bed - 3, "com.example.clock", focus: "sleep", place: "home") }
    }

    mutating func noise(from start: Double, to end: Double, _ random: inout SeededGenerator) {
        guard end > start else { return }
        // Poisson count by inversion (exact and portable).
        var count = 0
        var product = random.unit()
        let limit = exp(-configuration.noisePerDay)
        while product > limit {
            count += 1
            product *= random.unit()
        }
        for _ in 0..<count {
            let app = persona.noiseApps[random.integer(in: 0...(persona.noiseApps.count - 1))]
            donate(start + random.unit() * (end - start), app)
        }
    }
}
