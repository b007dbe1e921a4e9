import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - A simulated person

/// The habits of one simulated user, drawn once from the seed: when they wake,
/// which apps they use for what, and the habit that drifts mid-log.
public struct SimulatedPersona: Sendable, Hashable {
    public var user: String
    /// Fixed offset from UTC (seconds) of the user's local clock.
    public var utcOffset: Int
    /// Weekday wake-up, minutes after local midnight; weekends are `weekendDelay` later.
    public var wakeMinute: Double
    public var weekendDelay: Double
    public var bedMinute: Double
    /// Weekdays (0 = Monday) the user works from home (no commute).
    public var homeOfficeDays: Set<Int>
    public var homeCity: ParameterValue
    public var weatherApp: String
    public var transitApp: String
    public var workStation: ParameterValue
    public var mailApp: String
    public var chatApp: String
    public var lunchApp: String
    /// Lunch before and after the drift day.
    public var lunchBefore: String
    public var lunchAfter: String
    /// Evening media app before and after the drift day.
    public var eveningBefore: String
    public var eveningAfter: String
    public var partner: ParameterValue
    public var workout: String
    /// Apps opened at random times (noise).
    public var noiseApps: [String]

    static let cities: [(String, String)] = [("cupertino", "Cupertino"), ("lisbon", "Lisbon"), ("osaka", "Osaka"),
                                             ("toronto", "Toronto"), ("nairobi", "Nairobi"), ("berlin", "Berlin")]
    static let offsets = [-8 * 3600, -5 * 3600, 0, 3600, 3 * 3600, 9 * 3600]
    static let lunches = ["burrito", "poke bowl", "ramen", "falafel wrap", "caesar salad", "pad thai", "pho"]
    static let people = [("p-ana", "Ana"), ("p-sam", "Sam"), ("p-kim", "Kim"), ("p-lee", "Lee"), ("p-noor", "Noor")]
    static let workouts = ["run", "cycle", "yoga", "swim"]
    static let allNoiseApps = ["com.example.photos", "com.example.shop", "com.example.social", "com.example.notes",
                               "com.example.bank", "com.example.game", "com.example.browser", "com.example.camera",
                               "com.example.settings", "com.example.books"]

    /// Draws a persona; different `index`es give different, independent people.
    public static func draw(index: Int, seed: UInt64) -> SimulatedPersona {
        var random = SeededGenerator.derived(seed: seed, UInt64(index) &+ 0x5EED)
        func choose<T>(_ options: [T]) -> T { options[random.integer(in: 0...(options.count - 1))] }
        let city = choose(cities)
        let station = choose([("st-central", "Central"), ("st-harbor", "Harbor"), ("st-park", "Park Street")])
        let lunchBefore = choose(lunches)
        var lunchAfter = choose(lunches)
        while lunchAfter == lunchBefore { lunchAfter = choose(lunches) }
        let partner = choose(people)
        var homeOffice: Set<Int> = []
        if random.chance(0.5) { homeOffice.insert(4) }  // Fridays at home
        if random.chance(0.25) { homeOffice.insert(random.integer(in: 0...3)) }
        let noise = allNoiseApps.filter { _ in random.chance(0.5) }
        return SimulatedPersona(
            user: "sim\(String(format: "%04d", index))",
            utcOffset: choose(offsets),
            wakeMinute: 6 * 60 + Double(random.integer(in: 0...90)),
            weekendDelay: 60 + Double(random.integer(in: 0...90)),
            bedMinute: 22 * 60 + Double(random.integer(in: 0...90)),
            homeOfficeDays: homeOffice,
            homeCity: .entity(id: city.0, display: city.1),
            weatherApp: choose(["com.example.weather", "com.acme.forecast"]),
            transitApp: choose(["com.example.transit", "com.example.maps"]),
            workStation: .entity(id: station.0, display: station.1),
            mailApp: choose(["com.example.mail", "com.acme.outlook"]),
            chatApp: choose(["com.example.chat", "com.acme.teams"]),
            lunchApp: choose(["com.example.food", "com.acme.eats"]),
            lunchBefore: lunchBefore, lunchAfter: lunchAfter,
            eveningBefore: "com.example.video", eveningAfter: "com.example.podcasts",
            partner: .entity(id: partner.0, display: partner.1),
            workout: choose(workouts),
            noiseApps: noise.isEmpty ? [allNoiseApps[index % allNoiseApps.count]] : noise)
    }

    // MARK: Planted targets

    /// The morning weather check every persona does right after waking.
    public var morningDonation: (app: String, intent: String, parameters: [String: ParameterValue]) {
        (weatherApp, "CheckWeatherIntent", ["location": homeCity])
    }
}
