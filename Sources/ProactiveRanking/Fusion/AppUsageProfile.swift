import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - When the user usually uses an app

/// Each app's hour-of-day usage level (0...1, the app's peak hour = 1), read
/// from a fitted model: the probability mass of the app's targets at each hour.
///
/// It times "new content" (a relevant shortcut with no providers): the widget
/// is shown when the user usually uses the app (docs/DOMAIN.md 4.1).
public struct AppUsageProfile: Sendable, Hashable {
    /// App -> 24 levels, index = local hour; each app's maximum is 1 (all 0 when the model never predicts it).
    public private(set) var hourly: [String: [Double]]

    /// - Precondition: every array has 24 values.
    public init(hourly: [String: [Double]]) {
        precondition(hourly.values.allSatisfy { $0.count == 24 }, "an hourly profile has 24 values")
        self.hourly = hourly.mapValues(Self.normalized)
    }

    /// Samples `model` at the middle of each local hour of the day starting at
    /// `dayStart` (local midnight), summing the probabilities of each app's targets.
    /// - Parameters:
    ///   - apps: the apps to profile (others are skipped).
    ///   - appOf: the app of a target (see `TargetKey.app`).
    ///   - utcOffset, context: passed to the model's moments.
    /// - Complexity: 24 model evaluations.
    public static func sample<Model: FittedModel>(_ model: Model, apps: Set<String>, dayStart: Date, utcOffset: Int?,
                                                  context: [String: String] = [:]) -> AppUsageProfile {
        var hourly: [String: [Double]] = [:]
        for app in apps { hourly[app] = Array(repeating: 0, count: 24) }
        guard !apps.isEmpty else { return AppUsageProfile(hourly: hourly) }
        for hour in 0..<24 {
            let moment = Moment(date: dayStart.addingTimeInterval(Double(hour) * 3600 + 1800), utcOffset: utcOffset, context: context)
            for scored in model.scores(at: moment) {
                let app = scored.target.app
                if hourly[app] != nil { hourly[app]![hour] += scored.probability }
            }
        }
        return AppUsageProfile(hourly: hourly)
    }

    /// The app's level at `date`, interpolated linearly between hour midpoints
    /// (cyclic across midnight); 0 for an app without a profile.
    public func level(app: String, at date: Date, clock: LocalClock, utcOffset: Int?) -> Double {
        guard let levels = hourly[app] else { return 0 }
        let minute = clock.read(date, writtenOffset: utcOffset).minuteOfDay
        let position = minute / 60 - 0.5
        let lower = Int(position.rounded(.down))
        let fraction = position - Double(lower)
        let a = levels[(lower % 24 + 24) % 24]
        let b = levels[((lower + 1) % 24 + 24) % 24]
        return a + (b - a) * fraction
    }

    private static func normalized(_ levels: [Double]) -> [Double] {
        let peak = levels.max() ?? 0
        guard peak > 0 else { return levels.map { _ in 0 } }
        return levels.map { max(0, $0) / peak }
    }
}

// MARK: - The app of a target key

extension TargetKey {
    /// The app part of the key (before the first unescaped `:`), unescaped.
    package var app: String {
        let raw = rawValue
        guard let colon = raw.firstIndex(of: ":") else { return raw }
        return TargetKey.unescape(raw[..<colon])
    }
}
