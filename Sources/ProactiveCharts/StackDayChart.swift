import Foundation
import ProactiveRanking

// MARK: - A simulated Smart Stack day as SVG

/// Draws a `StackSimulation` (`proactive stack --svg`): a title naming the
/// user, the day and the zone; hour and quarter-hour ticks on the user's
/// clock; one row per widget, with the widget's score through the day as a
/// line, the floor that applies to it and the hysteresis line below it, and a
/// band where the widget is on top, coloured by why (rotated to, inserted,
/// resting). Hovering a band shows the span's reason; hovering an event mark
/// shows the event's.
///
/// ```swift
/// let chart = StackDayChart(user: "me", day: "2026-11-20", zone: "America/Los_Angeles", model: "blend",
///                           stackSize: 2, configuration: .standard, settings: StackSettings())
/// let svg = chart.svg(result, utcOffsetAt: { _ in -8 * 3600 })
/// ```
public struct StackDayChart: Sendable {
    public var user: String
    public var day: String
    public var zone: String
    public var model: String
    /// The first `stackSize` rows of the simulation are the stack's widgets; the others were inserted.
    public var stackSize: Int
    /// The floors and hysteresis in force (`liftingLimits` in developer mode).
    public var configuration: FusionConfiguration
    public var settings: StackSettings

    public static let rotatedColour = "#2d69be"
    public static let insertedColour = "#e0791a"
    public static let restingColour = "#9a9a9a"
    public static let scoreColour = "#1a1a1a"
    public static let gridColour = "#dddddd"

    public var width = 1200.0
    public var rowHeight = 86.0
    public var rowGap = 14.0
    /// Height of the on-top band at the bottom of each row.
    public var bandHeight = 16.0

    public init(user: String, day: String, zone: String, model: String, stackSize: Int,
                configuration: FusionConfiguration, settings: StackSettings) {
        self.user = user
        self.day = day
        self.zone = zone
        self.model = model
        self.stackSize = stackSize
        self.configuration = configuration
        self.settings = settings
    }

    /// The chart's title line.
    public var title: String { "Smart Stack on \(day) for user \(user) (\(zone))" }

    /// A tick on the time axis: the step it falls on, the local hour and minute.
    public struct Tick: Sendable, Equatable {
        public var step: Int
        public var hour: Int
        public var minute: Int
    }

    /// The steps that start a quarter hour on the clock whose offset at an
    /// instant is `utcOffsetAt` (a zone through a DST change gives 23 or 25 hours).
    public static func quarterTicks(_ simulation: StackSimulation, utcOffsetAt: (Date) -> Int) -> [Tick] {
        var ticks: [Tick] = []
        let step = max(1, Int(simulation.stepLength.rounded()))
        for (index, date) in simulation.steps.enumerated() {
            let seconds = Int((date.timeIntervalSince1970 + Double(utcOffsetAt(date))).rounded(.down))
            let secondOfDay = ((seconds % 86_400) + 86_400) % 86_400
            guard secondOfDay % 900 < step else { continue }
            ticks.append(Tick(step: index, hour: secondOfDay / 3600, minute: secondOfDay % 3600 / 60))
        }
        return ticks
    }

    /// The SVG text.
    public func svg(_ simulation: StackSimulation, utcOffsetAt: (Date) -> Int) -> String {
        let labelSize = 13.0
        let labels = simulation.rows.map(\.displayName)
        // The labels start at 16; then room for the score axis (0, 1).
        let left = max(150, (labels.map { SVG.textWidth($0, size: labelSize) }.max() ?? 0) + 48)
        let right = 96.0
        let plotWidth = width - left - right
        let top = 96.0
        let rows = max(1, simulation.rows.count)
        let plotBottom = top + Double(rows) * (rowHeight + rowGap) - rowGap
        let legendTop = plotBottom + 40
        let steps = max(1, simulation.steps.count)
        let stepWidth = plotWidth / Double(steps)
        func x(_ step: Int) -> Double { left + Double(step) * stepWidth }
        func clock(_ date: Date) -> String { RelevanceSignals.clock(date, utcOffsetAt(date)) }
        func stepIndex(_ date: Date) -> Int {
            max(0, min(steps, Int((date.timeIntervalSince(simulation.steps.first ?? date) / simulation.stepLength).rounded())))
        }
        func rowTop(_ row: Int) -> Double { top + Double(row) * (rowHeight + rowGap) }
        let scoreHeight = rowHeight - bandHeight - 8
        func scoreY(_ row: Int, _ score: Double) -> Double { rowTop(row) + 4 + scoreHeight * (1 - min(1, max(0, score))) }

        var svg = SVG(width: width, height: legendTop, title: title)
        // Title.
        svg.text(title, x: 16, y: 30, size: 19, bold: true, className: "title")
        var subtitle = "model \(model) · stack: \(simulation.rows.prefix(stackSize).map(\.displayName).joined(separator: ", "))"
        subtitle += " · Smart Rotate \(settings.smartRotate ? "on" : "off") · Widget Suggestions \(settings.widgetSuggestions ? "on" : "off")"
        if settings.developerMode { subtitle += " · developer mode (floors lifted)" }
        subtitle += " · one step every \(SVG.number(simulation.stepLength / 60)) min"
        svg.text(subtitle, x: 16, y: 52, size: 12, fill: "#555555", className: "subtitle")

        // Time axis: hour labels, hour grid lines, quarter-hour ticks.
        let ticks = Self.quarterTicks(simulation, utcOffsetAt: utcOffsetAt)
        for tick in ticks {
            let tx = x(tick.step)
            if tick.minute == 0 {
                svg.line(x1: tx, y1: top - 10, x2: tx, y2: plotBottom + 6, stroke: Self.gridColour, className: "hour-tick")
                svg.text(tick.hour < 10 ? "0\(tick.hour)" : "\(tick.hour)", x: tx, y: top - 14, size: 11, anchor: .middle,
                         fill: "#444444", className: "hour-label")
            } else {
                svg.line(x1: tx, y1: top - 5, x2: tx, y2: top, stroke: "#999999", className: "quarter-tick")
                svg.line(x1: tx, y1: plotBottom, x2: tx, y2: plotBottom + 4, stroke: "#999999", className: "quarter-tick")
            }
        }
        svg.text("hour of the day (\(zone))", x: left + plotWidth / 2, y: plotBottom + 22, size: 11, anchor: .middle, fill: "#555555")

        // Rows.
        let stickiness = 1 + configuration.hysteresis
        for (row, widget) in simulation.rows.enumerated() {
            let rowY = rowTop(row)
            let inStack = row < stackSize
            svg.group(className: "widget-row") { svg in
                svg.rect(x: left, y: rowY, width: plotWidth, height: rowHeight, fill: "#f6f7f9", className: "row-background")
                svg.text(widget.displayName, x: 16, y: rowY + rowHeight / 2 - 2, size: labelSize, bold: true, className: "row-label")
                svg.text(inStack ? "in the stack" : "suggested", x: 16, y: rowY + rowHeight / 2 + 14, size: 10, fill: "#666666")
                // Score axis: 0 and 1.
                svg.text("1", x: left - 4, y: scoreY(row, 1) + 4, size: 9, anchor: .end, fill: "#888888")
                svg.text("0", x: left - 4, y: scoreY(row, 0) + 3, size: 9, anchor: .end, fill: "#888888")
                // The floor that applies to this row and where hysteresis keeps the widget on top.
                let floor = inStack ? configuration.rotationFloor : configuration.insertionFloor
                if floor >= 0.001 {
                    let colour = inStack ? Self.rotatedColour : Self.insertedColour
                    let floorY = scoreY(row, floor)
                    let keep = floor / stickiness
                    let keepY = scoreY(row, keep)
                    svg.line(x1: left, y1: floorY, x2: left + plotWidth, y2: floorY, stroke: colour, width: 1, dash: "6 4", className: "floor")
                    svg.line(x1: left, y1: keepY, x2: left + plotWidth, y2: keepY, stroke: colour, width: 1, dash: "1 3", className: "keep")
                    svg.text("\(inStack ? "rotate" : "insert") ≥ \(Self.fixed(floor))", x: left + plotWidth + 6, y: floorY - 2, size: 10,
                             fill: colour, className: "floor-label",
                             tooltip: inStack ? "Smart Rotate turns to a widget whose score reaches \(Self.fixed(floor))"
                                 : "Widget Suggestions insert a widget whose score reaches \(Self.fixed(floor))")
                    svg.text("stays ≥ \(Self.fixed(keep))", x: left + plotWidth + 6, y: keepY + 10, size: 10, fill: colour, className: "keep-label",
                             tooltip: "hysteresis: the widget on top stays while its score × \(Self.fixed(stickiness)) reaches "
                                 + "\(Self.fixed(floor)), that is down to \(Self.fixed(keep))")
                }
                // Time inserted in the stack (thin band above the on-top band).
                var runStart: Int?
                let inserted = simulation.insertedRows[row]
                for step in 0...inserted.count {
                    let on = step < inserted.count && inserted[step]
                    if on, runStart == nil { runStart = step }
                    if !on, let start = runStart {
                        svg.rect(x: x(start), y: rowY + rowHeight - bandHeight - 5, width: x(step) - x(start), height: 3,
                                 fill: Self.insertedColour, opacity: 0.6,
                                 tooltip: "\(widget.displayName) in the stack as a suggestion \(clock(simulation.steps[start]))-"
                                     + clock(step < simulation.steps.count ? simulation.steps[step] : simulation.steps[step - 1].addingTimeInterval(simulation.stepLength)),
                                 className: "inserted-run")
                        runStart = nil
                    }
                }
                // The score through the day.
                svg.polyline(Self.thinned(simulation.scores[row].enumerated().map { (x($0.offset) + stepWidth / 2, scoreY(row, $0.element)) }),
                             stroke: Self.scoreColour, width: 1.5, className: "score",
                             tooltip: "\(widget.displayName): score through the day (0 to 1)")
            }
        }

        // On-top bands, one per span, with the reason on hover. Each is labelled with the range of its
        // widget's score over the span ("0.27-0.73": where it came on top, and its peak), inside the
        // band when it fits, else just below it, unless that would run into the previous label of the row.
        var labelEnds = [Double](repeating: -.infinity, count: simulation.rows.count)
        for span in simulation.spans {
            guard let row = simulation.rows.firstIndex(of: span.top) else { continue }
            let start = stepIndex(span.start)
            let end = max(start + 1, stepIndex(span.end))
            let count = simulation.scores[row].count
            let scoreText = Self.scoreRange(simulation.scores[row][min(start, count)..<min(end, count)], fallback: span.score)
            let colour: String
            switch span.reason {
            case .rotated: colour = Self.rotatedColour
            case .inserted: colour = Self.insertedColour
            case .resting: colour = Self.restingColour
            }
            let bandY = rowTop(row) + rowHeight - bandHeight
            var tip = "\(clock(span.start))-\(clock(span.end))  \(span.top.displayName) on top (\(span.reason.rawValue))"
            if span.reason != .resting { tip += ", score \(scoreText)" }
            tip += ": \(span.text)"
            svg.group(tooltip: tip, className: "span span-\(span.reason.rawValue)") { svg in
                // A transparent cover over the whole row makes the reason easy to hover.
                svg.rect(x: x(start), y: rowTop(row), width: x(end) - x(start), height: rowHeight - bandHeight, fill: "#000000", opacity: 0)
                svg.rect(x: x(start), y: bandY, width: x(end) - x(start), height: bandHeight, fill: colour)
                let label = span.reason == .resting ? "resting" : scoreText
                let labelWidth = SVG.textWidth(label, size: 10)
                if x(end) - x(start) >= labelWidth + 6 {
                    svg.text(label, x: x(start) + 3, y: bandY + bandHeight - 4, size: 10, fill: "#ffffff", className: "span-label")
                    labelEnds[row] = x(start) + 3 + labelWidth
                } else if x(start) >= labelEnds[row] + 4 {
                    svg.text(label, x: x(start), y: bandY + bandHeight + 10, size: 10, fill: "#333333", className: "span-label")
                    labelEnds[row] = x(start) + SVG.textWidth(label, size: 10)
                }
            }
        }

        // Events: a mark at the top of the row they concern.
        for event in simulation.events {
            let widget: WidgetID
            let what: String
            switch event.change {
            case let .rotated(from, to): widget = to; what = "rotated from \(from.displayName) to \(to.displayName)"
            case let .inserted(inserted): widget = inserted; what = "inserted \(inserted.displayName)"
            case let .removed(removed): widget = removed; what = "removed \(removed.displayName)"
            }
            guard let row = simulation.rows.firstIndex(of: widget) else { continue }
            let ex = x(stepIndex(event.date))
            let bandY = rowTop(row) + rowHeight - bandHeight
            svg.polyline([(ex - 5, bandY - 9), (ex + 5, bandY - 9), (ex, bandY - 1), (ex - 5, bandY - 9)], stroke: "#222222", width: 1,
                         className: "event", tooltip: "\(clock(event.date))  \(what): \(event.text)")
        }

        // Legend.
        var legendX = 16.0
        var legendY = legendTop
        func swatch(_ text: String, draw: (inout SVG, Double, Double) -> Void) {
            let itemWidth = 30 + SVG.textWidth(text, size: 11) + 22
            if legendX + itemWidth > width - 16 {
                legendX = 16
                legendY += 22
            }
            svg.group(className: "legend-item") { svg in
                draw(&svg, legendX, legendY)
                svg.text(text, x: legendX + 28, y: legendY + 4, size: 11)
            }
            legendX += itemWidth
        }
        swatch("on top: Smart Rotate turned to it") { svg, x, y in
            svg.rect(x: x, y: y - 6, width: 22, height: 12, fill: Self.rotatedColour)
        }
        swatch("on top: inserted by Widget Suggestions") { svg, x, y in
            svg.rect(x: x, y: y - 6, width: 22, height: 12, fill: Self.insertedColour)
        }
        swatch("on top: resting (nothing clears the floor)") { svg, x, y in
            svg.rect(x: x, y: y - 6, width: 22, height: 12, fill: Self.restingColour)
        }
        swatch("in the stack as a suggestion") { svg, x, y in
            svg.rect(x: x, y: y - 1, width: 22, height: 3, fill: Self.insertedColour, opacity: 0.6)
        }
        swatch("score (0 at the row's foot, 1 at its head)") { svg, x, y in
            svg.line(x1: x, y1: y, x2: x + 22, y2: y, stroke: Self.scoreColour, width: 1.5)
        }
        swatch("floor: rotate to / insert a widget") { svg, x, y in
            svg.line(x1: x, y1: y, x2: x + 22, y2: y, stroke: "#555555", dash: "6 4")
        }
        swatch("hysteresis: the top widget stays while score × \(Self.fixed(stickiness)) reaches the floor") { svg, x, y in
            svg.line(x1: x, y1: y, x2: x + 22, y2: y, stroke: "#555555", dash: "1 3")
        }
        swatch("event (rotation, insertion, removal)") { svg, x, y in
            svg.polyline([(x + 6, y - 5), (x + 16, y - 5), (x + 11, y + 3), (x + 6, y - 5)], stroke: "#222222", width: 1)
        }
        svg.text("Hover a band for why that widget is on top, a mark for why it changed.", x: 16, y: legendY + 26, size: 11,
                 fill: "#555555")
        svg.height = legendY + 40
        return svg.document()
    }

    /// `value` to two decimals.
    /// A band's label: the lowest and highest of `scores` to two decimals ("0.28-0.91"), one number
    /// when they print alike, `fallback` when `scores` is empty.
    static func scoreRange(_ scores: ArraySlice<Double>, fallback: Double) -> String {
        let (low, high) = (fixed(scores.min() ?? fallback), fixed(scores.max() ?? fallback))
        return low == high ? high : "\(low)-\(high)"
    }

    static func fixed(_ value: Double) -> String { String(format: "%.2f", value) }

    /// `points` without those in the middle of a run at the same height (a flat
    /// stretch needs only its ends).
    static func thinned(_ points: [(Double, Double)]) -> [(x: Double, y: Double)] {
        var kept: [(x: Double, y: Double)] = []
        for (index, point) in points.enumerated() {
            let rounded = (point.1 * 10).rounded() / 10
            let previous = index > 0 ? (points[index - 1].1 * 10).rounded() / 10 : .nan
            let next = index + 1 < points.count ? (points[index + 1].1 * 10).rounded() / 10 : .nan
            if rounded == previous && rounded == next { continue }
            kept.append((point.0, point.1))
        }
        return kept
    }
}
