import Foundation
import ProactiveCore
@testable import ProactiveModels

/// Deterministic synthetic histories for the model tests.
enum Fixtures {
    /// 2026-01-05T00:00:00Z, a Monday.
    static let start: Double = 1_767_571_200

    static func target(_ name: String) -> TargetKey { TargetKey(rawValue: name) }

    static func date(day: Int, hour: Double) -> Date { Date(timeIntervalSince1970: start + Double(day) * 86_400 + hour * 3600) }

    static func event(_ name: String, day: Int, hour: Double, context: [String: String] = [:], weight: Double = 1) -> Event {
        Event(target: target(name), date: date(day: day, hour: hour), utcOffset: 0, context: context, weight: weight)
    }

    static func moment(day: Int, hour: Double, context: [String: String] = [:], recent: [Event] = []) -> Moment {
        Moment(date: date(day: day, hour: hour), utcOffset: 0, context: context, recent: recent)
    }

    /// A person's routine (UTC clock): weekday mornings weather then coffee,
    /// mail at work with focus=work, music in the evening; weekend mornings
    /// news; plus random noise targets. Jitter of about ±20 minutes.
    static func routine(days: Int, seed: UInt64 = 7, noise: Double = 0.2) -> [Event] {
        var random = SeededGenerator(seed: seed)
        var events: [Event] = []
        func jitter() -> Double { (random.unit() - 0.5) * 0.66 }
        for day in 0 ..< days {
            let weekend = day % 7 >= 5
            if weekend {
                events.append(event("news", day: day, hour: 10 + jitter(), context: ["place": "home"]))
                if random.chance(0.7) { events.append(event("bike", day: day, hour: 11 + jitter(), context: ["place": "park"])) }
            } else {
                events.append(event("weather", day: day, hour: 7.3 + jitter(), context: ["place": "home"]))
                events.append(event("coffee", day: day, hour: 7.9 + jitter() / 3, context: ["place": "home"]))
                for hour in [10.0, 14.0] {
                    events.append(event("mail", day: day, hour: hour + jitter(), context: ["focus": "work", "place": "office"]))
                }
            }
            events.append(event("music", day: day, hour: 21 + jitter(), context: ["place": "home"]))
            if random.chance(noise) {
                let name = ["game", "maps", "shop"][random.integer(in: 0 ... 2)]
                events.append(event(name, day: day, hour: 12 + 8 * random.unit()))
            }
        }
        return events.sorted { $0.date < $1.date }
    }

    /// A few moments across the day and week, with and without context.
    static var probeMoments: [Moment] {
        [moment(day: 30, hour: 7.5, context: ["place": "home"]), moment(day: 30, hour: 10, context: ["focus": "work"]),
         moment(day: 33, hour: 21), moment(day: 33, hour: 3, context: ["weather": "rain"]), moment(day: 33, hour: 10.2)]
    }

    /// Max |a - b| / max(|a|, |b|, 1e-300) over two rankings compared by target.
    static func maxRelativeDifference(_ a: [ScoredTarget], _ b: [ScoredTarget]) -> Double {
        let right = Dictionary(uniqueKeysWithValues: b.map { ($0.target, $0.probability) })
        guard a.count == b.count else { return .infinity }
        var worst = 0.0
        for scored in a {
            guard let other = right[scored.target] else { return .infinity }
            let scale = max(abs(scored.probability), abs(other), 1e-300)
            worst = max(worst, abs(scored.probability - other) / scale)
        }
        return worst
    }
}
