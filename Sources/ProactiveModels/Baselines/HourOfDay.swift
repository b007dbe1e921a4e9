import Foundation
import ProactiveCore

// MARK: - Hour-of-day frequency

/// Predicts from what the user did at this local hour:
/// P(t | h) = (c(h, t) + β·P(t)) / (c(h) + β), backing off to the overall
/// frequency P(t) with strength β = `backoffStrength`. Name: `hour-of-day`.
///
/// Hours are read on the event's and the moment's own offsets (`LocalClock`
/// with no zone), or in `timeZone` when one is configured.
package struct HourOfDayTrainer: ReplayTrainer {
    package let name = HourOfDayModel.modelName
    package var backoffStrength: Double
    package var clock: LocalClock

    package init(backoffStrength: Double = 2, clock: LocalClock = LocalClock()) {
        self.backoffStrength = backoffStrength
        self.clock = clock
    }

    package typealias Model = HourOfDayModel

    package func makeModel() -> HourOfDayModel { HourOfDayModel(backoffStrength: backoffStrength, clock: clock) }
}

/// The fitted hour-of-day baseline.
package struct HourOfDayModel: FittedModel {
    package static let modelName = "hour-of-day"
    package var name: String { Self.modelName }
    package let backoffStrength: Double
    package let clock: LocalClock
    private(set) var frequency = TargetTally()
    /// Tallies per local hour 0..<24.
    private(set) var byHour = [TargetTally](repeating: TargetTally(), count: 24)

    package init(backoffStrength: Double = 2, clock: LocalClock = LocalClock()) {
        self.backoffStrength = backoffStrength
        self.clock = clock
    }

    /// The local hour (0..<24) of an instant.
    package func hour(of date: Date, utcOffset: Int?) -> Int {
        min(23, max(0, Int(clock.read(date, writtenOffset: utcOffset).minuteOfDay / 60)))
    }

    package func scores(at moment: Moment) -> [ScoredTarget] {
        let tally = byHour[hour(of: moment.date, utcOffset: moment.utcOffset)]
        return BaselineRanking.ranked(BaselineRanking.smoothed(tally, toward: frequency, strength: backoffStrength))
    }

    package mutating func update(with event: Event) {
        frequency.add(event.target, weight: event.weight)
        byHour[hour(of: event.date, utcOffset: event.utcOffset)].add(event.target, weight: event.weight)
    }
}
