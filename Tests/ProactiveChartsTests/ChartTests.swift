import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import ProactiveCharts
import ProactiveCore
@testable import ProactiveLab
@testable import ProactiveModels
import ProactiveRanking
import Testing

// MARK: - Reading the SVG back as XML

/// An element of a parsed SVG: its name, attributes, text and children.
final class Node {
    let name: String
    let attributes: [String: String]
    var text = ""
    var children: [Node] = []
    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// Every element below this one (this one included), depth first.
    var all: [Node] { [self] + children.flatMap(\.all) }
    func elements(_ name: String, className: String? = nil) -> [Node] {
        all.filter { $0.name == name && (className == nil || ($0.attributes["class"] ?? "").split(separator: " ").contains(Substring(className!))) }
    }
    /// The `<title>` child's text (a tooltip), if any.
    var tooltip: String? { children.first { $0.name == "title" }?.text }
    /// The element's own text without its tooltip.
    var ownText: String { text }
}

/// Parses `text` with Foundation's XMLParser; records an issue and returns nil when it is not well-formed.
final class TreeBuilder: NSObject, XMLParserDelegate {
    var stack: [Node] = []
    var root: Node?

    static func parse(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Node? {
        let builder = TreeBuilder()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            Issue.record("not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "no root")", sourceLocation: sourceLocation)
            return nil
        }
        return root
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        let node = Node(name: elementName, attributes: attributes)
        stack.last?.children.append(node)
        if stack.isEmpty { root = node }
        stack.append(node)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        stack.removeLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        stack.last?.text += string
    }
}

// MARK: - Fixtures

/// A day in Cupertino (UTC-8): weather is wanted 06:00-09:00, a calendar event
/// is declared for 09:30-10:30 and the reminders timeline peaks at 15:00.
enum Fixture {
    static let offset = -8 * 3600
    static let midnight = Date(timeIntervalSince1970: Double(Timestamp.daysFromCivil(year: 2026, month: 11, day: 20) * 86_400 - offset))
    static func at(_ hour: Int, _ minute: Int = 0) -> Date { midnight.addingTimeInterval(Double(hour * 3600 + minute * 60)) }

    static let cupertino = ParameterValue.entity(id: "cupertino", display: "Cupertino")
    static let weatherTarget = Target(key: TargetKey(app: "com.example.weather", intent: "CheckWeatherIntent", parameters: ["location": cupertino]),
                                      app: "com.example.weather", intent: "CheckWeatherIntent", parameters: ["location": cupertino],
                                      summary: "Weather in Cupertino")
    static let weather = WidgetID(app: "com.example.weather", kind: "weather",
                                  configuration: WidgetConfiguration(intent: "CheckWeatherIntent", parameters: ["location": cupertino]))
    static let reminders = WidgetID(app: "com.example.reminders", kind: "reminders")
    static let calendar = WidgetID(app: "com.example.calendar", kind: "calendar")

    static func simulation() throws -> StackSimulation {
        var declarations = Declarations()
        declarations.shortcuts.replace(RelevantShortcutSet(app: calendar.app, shortcuts: [
            RelevantShortcut(widget: calendar, role: .information, providers: [.date(start: at(9, 30), end: at(10, 30))]),
        ], declaredAt: at(0)))
        declarations.timelines.replace(try WidgetTimeline(widget: reminders, entries: [
            TimelineEntry(date: at(0), score: 0), TimelineEntry(date: at(15), score: 10, duration: 3600),
        ]))
        let ranker = Ranker(declarations: declarations, targets: [weatherTarget.key: weatherTarget])
        let stack = SmartStack(widgets: [weather, reminders])
        return DaySimulation(engine: SmartStackEngine(ranker: ranker), utcOffset: offset)
            .run(stack, from: midnight, to: at(24)) { moment in
                let hour = (Int(moment.date.timeIntervalSince(midnight)) / 3600)
                return [ScoredTarget(target: weatherTarget.key, probability: (6..<9).contains(hour) ? 0.8 : 0.05)]
            }
    }

    static func report(_ model: String, ranks: [Int], top: [Double]) -> EvaluationReport {
        var result = EvaluationResult(model: model, online: true, ranks: ranks, probabilities: ranks.map { $0 == 1 ? 0.5 : 0.1 },
                                      metrics: RankMetrics(ranks: ranks), logLoss: 1, logLossEpsilon: 1e-6,
                                      novelTargets: 0, users: 1, trainingEvents: 10, fitFailures: [:])
        result.topProbabilities = top
        return EvaluationReport(result: result, wallSeconds: 0.1)
    }
}

// MARK: - Tests

@Suite("SVG charts")
struct ChartTests {
    @Test func escapingKeepsTheDocumentWellFormed() throws {
        var svg = SVG(width: 100, height: 50, title: "a <b> & \"c\"")
        svg.text("x < y & \u{1} z", x: 1, y: 2, tooltip: "'quoted' > ok")
        let root = try #require(TreeBuilder.parse(svg.document()))
        #expect(root.name == "svg" && root.attributes["width"] == "100")
        #expect(root.children.first?.text == "a <b> & \"c\"")
        #expect(root.elements("text").first?.ownText == "x < y &  z")
        #expect(root.elements("text").first?.tooltip == "'quoted' > ok")
        #expect(SVG.number(12) == "12" && SVG.number(3.5) == "3.5" && SVG.number(0.254) == "0.25" && SVG.number(.nan) == "0")
    }

    @Test func theStackDayHasItsTitleTicksRowsFloorsAndLegend() throws {
        let simulation = try Fixture.simulation()
        #expect(simulation.rows == [Fixture.weather, Fixture.reminders, Fixture.calendar])
        let chart = StackDayChart(user: "me", day: "2026-11-20", zone: "America/Los_Angeles", model: "hourly", stackSize: 2,
                                  configuration: .standard, settings: StackSettings())
        let root = try #require(TreeBuilder.parse(chart.svg(simulation, utcOffsetAt: { _ in Fixture.offset })))
        // Title with user, day and zone.
        let title = try #require(root.elements("text", className: "title").first)
        #expect(title.ownText == "Smart Stack on 2026-11-20 for user me (America/Los_Angeles)")
        #expect(root.children.first { $0.name == "title" }?.text == title.ownText)
        // 24 hour labels, each hour and each quarter hour ticked.
        #expect(root.elements("text", className: "hour-label").map(\.ownText) == (0..<24).map { $0 < 10 ? "0\($0)" : "\($0)" })
        #expect(root.elements("line", className: "hour-tick").count == 24)
        #expect(root.elements("line", className: "quarter-tick").count == 2 * 24 * 3)
        // One row per widget, with its name, its score line and its floor.
        let rows = root.elements("g", className: "widget-row")
        #expect(rows.count == 3)
        #expect(rows.map { $0.elements("text", className: "row-label").first?.ownText } == ["weather (Cupertino)", "reminders", "calendar"])
        #expect(rows.allSatisfy { $0.elements("polyline", className: "score").count == 1 })
        #expect(rows.prefix(2).allSatisfy { $0.elements("text", className: "floor-label").first?.ownText == "rotate ≥ 0.30" })
        #expect(rows[2].elements("text", className: "floor-label").first?.ownText == "insert ≥ 0.50")
        #expect(rows[0].elements("text", className: "keep-label").first?.ownText == "stays ≥ 0.26")
        // Spans: each band says on hover what is on top and why.
        let spans = root.elements("g", className: "span")
        #expect(spans.count == simulation.spans.count)
        let morning = try #require(spans.first { $0.tooltip?.hasPrefix("06:00-") == true })
        #expect(morning.tooltip?.contains("weather (Cupertino) on top (rotated), score 0.80") == true)
        #expect(spans.contains { $0.tooltip?.contains("calendar on top (inserted)") == true })
        #expect(spans.contains { $0.tooltip?.contains("reminders on top (rotated)") == true })
        #expect(root.elements("polyline", className: "event").count == simulation.events.count)
        // Each band's label is its widget's score range over the span (low-high, one number when flat), or "resting".
        let labels = root.elements("text", className: "span-label").map(\.ownText)
        let step = simulation.stepLength
        let ranges = simulation.spans.filter { $0.reason != .resting }.compactMap { span -> String? in
            guard let row = simulation.rows.firstIndex(of: span.top),
                  let first = simulation.steps.firstIndex(where: { $0 >= span.start }) else { return nil }
            let last = simulation.steps.lastIndex(where: { $0.addingTimeInterval(step) <= span.end }) ?? first
            return StackDayChart.scoreRange(simulation.scores[row][first ... max(first, last)], fallback: span.score)
        }
        // A span whose score moves is labelled by its range, not its first value.
        #expect(StackDayChart.scoreRange([0.274, 0.5, 0.731, 0.6], fallback: 0) == "0.27-0.73")
        #expect(StackDayChart.scoreRange([0.8, 0.801], fallback: 0) == "0.80")
        #expect(!labels.isEmpty && labels.allSatisfy { $0 == "resting" || ranges.contains($0) }, "\(labels) not among \(ranges)")
        // The legend names every colour and line.
        let legend = root.elements("g", className: "legend-item").compactMap { $0.elements("text").first?.ownText }
        #expect(legend.contains("on top: Smart Rotate turned to it") && legend.contains("on top: inserted by Widget Suggestions")
                && legend.contains("on top: resting (nothing clears the floor)") && legend.count == 8)
        #expect(legend.contains { $0.hasPrefix("hysteresis: the top widget stays while score × 1.15") })
    }

    /// Issue 16, item 12: the day clocks go back has 25 hour marks (1 twice),
    /// the day they go forward 23 (no 2), each read at its instant.
    @Test func ticksFollowTheClockThroughDaylightSaving() throws {
        let zone = try #require(TimeZone(identifier: "America/Los_Angeles"))
        let offsetAt = { (date: Date) in zone.secondsFromGMT(for: date) }
        let stack = SmartStack(widgets: [Fixture.weather])
        func hours(_ year: Int, _ month: Int, _ day: Int) -> [Int] {
            let days = Timestamp.daysFromCivil(year: year, month: month, day: day)
            let start = LocalClock.startOfDay(days, offsetAt: offsetAt), end = LocalClock.startOfDay(days + 1, offsetAt: offsetAt)
            let simulation = DaySimulation(engine: SmartStackEngine(ranker: Ranker()), utcOffsetAt: { zone.secondsFromGMT(for: $0) },
                                           contextAt: { _ in [:] }, step: 900)
                .run(stack, from: start, to: end) { _ in [] }
            return StackDayChart.quarterTicks(simulation, utcOffsetAt: offsetAt).filter { $0.minute == 0 }.map(\.hour)
        }
        #expect(hours(2026, 11, 1) == [0, 1, 1] + Array(2...23))
        #expect(hours(2026, 3, 8) == [0, 1] + Array(3...23))
        #expect(hours(2026, 11, 20) == Array(0...23))
    }

    @Test func theEvaluationHasHitAtOneToTenPerModelAndCalibration() throws {
        let reports = [
            Fixture.report("blend", ranks: [1, 1, 2, 3, 11, 0], top: [0.9, 0.7, 0.6, 0.3, 0.2, 0.05]),
            Fixture.report("mfu", ranks: [2, 1, 5, 10, 0, 0], top: [0.4, 0.4, 0.4, 0.4, 0.4, 0.4]),
        ]
        let chart = EvaluationChart(title: "Android log, online", subtitle: "6 test donations", highlighted: "blend")
        let root = try #require(TreeBuilder.parse(chart.svg(reports)))
        #expect(root.elements("text", className: "title").first?.ownText == "Android log, online")
        // hit@k: one line per model, points for k = 1 ... 10 telling their value.
        let curves = root.elements("g", className: "hit-curve")
        #expect(curves.count == 2)
        for (curve, report) in zip(curves, reports) {
            let points = ["circle", "rect", "polygon"].flatMap { curve.elements($0, className: "hit-point") }.compactMap(\.tooltip)
                .sorted { $0.count == $1.count ? $0 < $1 : $0.count < $1.count }
            #expect(points == (1...10).map { "\(report.result.model): hit@\($0) = \(String(format: "%.3f", RankMetrics.hitRate(report.result.ranks, at: $0)))" })
        }
        #expect(root.elements("text", className: "x-tick").prefix(10).map(\.ownText) == (1...10).map(String.init))
        // Calibration: one point per non-empty bin.
        let calibration = root.elements("g", className: "calibration-curve")
        #expect(calibration.count == 2)
        #expect(calibration[0].elements("circle").count == 6)  // 0.9, 0.7, 0.6, 0.3, 0.2, 0.05 fall in six bins
        // The second model's markers are squares: lines with the same values stay apart by dash and marker.
        #expect(calibration[1].elements("rect").map(\.tooltip) == ["mfu: first choice predicted 0.4-0.5: 6 donations, mean predicted 0.400, right 0.167 of the time"])
        let lines = root.elements("polyline").filter { $0.tooltip?.hasSuffix("hit@k for k = 1 ... 10") == true }
        #expect(lines.map { $0.attributes["stroke-dasharray"] } == [nil, "7 4"])  // the default model solid
        let legend = root.elements("g", className: "legend-item").compactMap { $0.elements("text").first?.ownText }
        #expect(legend == ["blend: hit@1 0.333, hit@4 0.667, hit@10 0.667 (default)", "mfu: hit@1 0.167, hit@4 0.333, hit@10 0.667",
                           "calibrated: observed = predicted"])
        // The point-size scale: one bin of 1 donation up to the largest (6), on one scale for both models.
        #expect(root.elements("text", className: "size-scale-label").map(\.ownText) == ["1", "6"])
        #expect(root.elements("text", className: "no-calibration").isEmpty)

        // Ranks alone (evaluate --through-engine): the hit@k curve, and the calibration panel says why it is empty.
        let ranksOnly = Fixture.report("blend", ranks: [1, 2, 0], top: [])
        let bare = try #require(TreeBuilder.parse(EvaluationChart(title: "ranks only").svg([ranksOnly])))
        #expect(bare.elements("circle", className: "hit-point").count == 10 && bare.elements("g", className: "calibration-curve").isEmpty)
        #expect(bare.elements("text", className: "no-calibration").first?.ownText == "no first-choice probabilities were recorded (ranks only)")
    }

    @Test func aPNGNeedsRsvgConvertAndSaysSo() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-chart-test-\(UUID().uuidString).png").path
        #expect(PNGConverter.locate(path: "") == nil && PNGConverter.locate(path: "/nonexistent:/also-not") == nil)
        do {
            try PNGConverter.convert(svg: SVG(width: 10, height: 10, title: "t").document(), to: output, path: "/nonexistent")
            Issue.record("converted without rsvg-convert")
        } catch let failure as PNGConverter.Failure {
            #expect(failure.description.contains("apt-get install librsvg2-bin") && failure.description.hasPrefix(output))
        }
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
