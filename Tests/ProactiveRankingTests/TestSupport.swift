import Foundation
import Testing
import ProactiveCore
import ProactiveModels
@testable import ProactiveRanking

// MARK: - Dates on the talks' day

/// The day the talks' examples play on, in Cupertino (UTC-8 in November).
enum Day {
    static let offset = -8 * 3600
    static let midnight = Date(timeIntervalSince1970: Double(Timestamp.daysFromCivil(year: 2026, month: 11, day: 20) * 86_400 - offset))

    /// 2026-11-20 at `hour:minute` local time.
    static func at(_ hour: Int, _ minute: Int = 0, _ second: Int = 0) -> Date {
        midnight.addingTimeInterval(Double(hour * 3600 + minute * 60 + second))
    }

    static func moment(_ hour: Int, _ minute: Int = 0, context: [String: String] = [:]) -> Moment {
        Moment(date: at(hour, minute), utcOffset: offset, context: context)
    }
}

// MARK: - A small deterministic model (tests only)

/// An hour-of-day histogram model: each target has a weight per local hour;
/// probabilities are the weights at the moment's hour, normalised. `update`
/// adds the event's weight to its hour. Deterministic and real enough to drive
/// the ranking in tests.
struct HourlyModel: FittedModel {
    var name: String { "hourly" }
    var weights: [TargetKey: [Double]]
    var clock = LocalClock()

    init(_ weights: [TargetKey: [Double]]) {
        precondition(weights.values.allSatisfy { $0.count == 24 })
        self.weights = weights
    }

    /// `base` at every hour, `peak` in `hours`.
    static func profile(base: Double, peak: Double, hours: Range<Int>) -> [Double] {
        (0..<24).map { hours.contains($0) ? peak : base }
    }

    func scores(at moment: Moment) -> [ScoredTarget] {
        let hour = Int(clock.read(moment.date, writtenOffset: moment.utcOffset).minuteOfDay / 60)
        let total = weights.values.reduce(0) { $0 + $1[hour] }
        guard total > 0 else { return weights.keys.sorted().map { ScoredTarget(target: $0, probability: 1 / Double(weights.count)) } }
        return weights.map { ScoredTarget(target: $0.key, probability: $0.value[hour] / total) }
            .sorted { $0.probability != $1.probability ? $0.probability > $1.probability : $0.target < $1.target }
    }

    mutating func update(with event: Event) {
        let hour = Int(clock.read(event.date, writtenOffset: event.utcOffset).minuteOfDay / 60)
        weights[event.target, default: Array(repeating: 0, count: 24)][hour] += event.weight
    }
}

// MARK: - The talks' apps and widgets

enum Talk {
    static let cupertino = ParameterValue.entity(id: "cupertino", display: "Cupertino")
    static let weatherTarget = Target(key: TargetKey(app: "com.example.weather", intent: "CheckWeatherIntent", parameters: ["location": cupertino]),
                                      app: "com.example.weather", intent: "CheckWeatherIntent", parameters: ["location": cupertino],
                                      summary: "Weather in Cupertino")
    static let weather = WidgetID(app: "com.example.weather", kind: "weather",
                                  configuration: WidgetConfiguration(intent: "CheckWeatherIntent", parameters: ["location": cupertino]))
    static let reminders = WidgetID(app: "com.example.reminders", kind: "reminders")
    static let calendar = WidgetID(app: "com.example.calendar", kind: "calendar")
    static let purchases = WidgetID(app: "com.example.bank", kind: "recentPurchases")
    static let mailTarget = Target(key: TargetKey(app: "com.example.mail", intent: "open", parameters: [:]), app: "com.example.mail",
                                   intent: "open", parameters: [:], summary: "Open com.example.mail")

    /// Weather is checked right after waking (06-09); mail all day.
    static func model() -> HourlyModel {
        HourlyModel([
            weatherTarget.key: HourlyModel.profile(base: 0.05, peak: 0.7, hours: 6..<9),
            mailTarget.key: HourlyModel.profile(base: 0.95, peak: 0.3, hours: 6..<9),
        ])
    }

    static var targets: [TargetKey: Target] { [weatherTarget.key: weatherTarget, mailTarget.key: mailTarget] }

    /// The talks' declarations: a 10:00 meeting (calendar shortcut 09:30-10:30),
    /// a reminder due at 15:00 and rain from 18:00 (timelines).
    static func declarations() throws -> Declarations {
        var declarations = Declarations()
        declarations.shortcuts.replace(RelevantShortcutSet(app: calendar.app, shortcuts: [
            RelevantShortcut(widget: calendar, role: .information, providers: [.date(start: Day.at(9, 30), end: Day.at(10, 30))]),
        ], declaredAt: Day.at(0)))
        declarations.timelines.replace(try WidgetTimeline(widget: reminders, entries: [
            TimelineEntry(date: Day.at(0), score: 0),
            TimelineEntry(date: Day.at(15), score: 10, duration: 3600),
        ]))
        declarations.timelines.replace(try WidgetTimeline(widget: weather, entries: [
            TimelineEntry(date: Day.at(0), score: 0),
            TimelineEntry(date: Day.at(18), score: 1, duration: 2 * 3600),
        ]))
        return declarations
    }
}

// MARK: - Declaration errors

/// Expects `body` to reject `input` with a `DeclarationError` whose description is `expected`.
func expectDeclarationError(_ expected: String, input: String, sourceLocation: SourceLocation = #_sourceLocation,
                            _ body: () throws(DeclarationError) -> Void) {
    do {
        try body()
        Issue.record("accepted \(input)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.description == expected, sourceLocation: sourceLocation)
    }
}
