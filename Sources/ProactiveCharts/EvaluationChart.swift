import Foundation
import ProactiveLab
import ProactiveModels

// MARK: - An evaluation as SVG

/// Draws evaluation reports (`proactive evaluate --svg`): on the left hit@k
/// for k = 1 ... 10, one line per model; on the right the calibration of each
/// model's first choice (mean predicted probability of a bin against how often
/// the first choice was right), with the diagonal a calibrated model follows.
/// Every point tells its value on hover.
///
/// ```swift
/// let svg = EvaluationChart(title: "Android log, online").svg(reports)
/// ```
public struct EvaluationChart: Sendable {
    public var title: String
    public var subtitle: String
    /// The model drawn with a thicker line (the default model).
    public var highlighted: String?

    public static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#17becf", "#bcbd22"]
    /// Dash patterns, one per model in turn, so lines with the same values stay apart: one drawn over
    /// another shows both. The highlighted model's line is solid (without one, the first model's).
    public static let dashes = ["7 4", "2 3", "10 3 2 3", "4 4", "1 2", "12 4", "6 2 2 2 2 2"]

    /// The dash pattern of the `index`th of the models (nil: solid).
    func dash(_ index: Int, model: String, models: [String]) -> String? {
        let solid = highlighted.flatMap { models.firstIndex(of: $0) } ?? 0
        guard index != solid else { return nil }
        return Self.dashes[(index < solid ? index : index - 1) % Self.dashes.count]
    }

    /// Model `index`'s point marker: a circle, a square or a diamond, in turn.
    enum Marker: CaseIterable { case circle, square, diamond }

    static func marker(_ index: Int) -> Marker { Marker.allCases[index % Marker.allCases.count] }

    /// Draws model `index`'s marker of radius `r` at (x, y).
    static func mark(_ svg: inout SVG, _ index: Int, x: Double, y: Double, r: Double, fill: String, className: String? = nil,
                     tooltip: String? = nil) {
        switch marker(index) {
        case .circle: svg.circle(cx: x, cy: y, r: r, fill: fill, className: className, tooltip: tooltip)
        case .square: svg.rect(x: x - r * 0.9, y: y - r * 0.9, width: r * 1.8, height: r * 1.8, fill: fill, tooltip: tooltip, className: className)
        case .diamond: svg.polygon([(x, y - r * 1.2), (x + r * 1.2, y), (x, y + r * 1.2), (x - r * 1.2, y)], fill: fill, className: className, tooltip: tooltip)
        }
    }

    public init(title: String, subtitle: String = "", highlighted: String? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.highlighted = highlighted
    }

    /// The SVG text for `reports` (one colour per report, in order).
    public func svg(_ reports: [EvaluationReport]) -> String {
        let width = 1120.0
        let panel = (width: 440.0, height: 340.0)
        let panelTop = 96.0
        let leftPanel = 80.0
        let rightPanel = leftPanel + panel.width + 130
        let legendTop = panelTop + panel.height + 64
        var svg = SVG(width: width, height: legendTop, title: title)
        svg.text(title, x: 16, y: 30, size: 19, bold: true, className: "title")
        if !subtitle.isEmpty { svg.text(subtitle, x: 16, y: 52, size: 12, fill: "#555555", className: "subtitle") }

        // Axes and grids.
        func axes(x0: Double, heading: String, xLabel: String, yLabel: String, xTicks: [(Double, String)]) {
            svg.text(heading, x: x0, y: panelTop - 14, size: 14, bold: true, className: "panel-title")
            for index in 0...5 {
                let value = Double(index) / 5
                let y = panelTop + panel.height * (1 - value)
                svg.line(x1: x0, y1: y, x2: x0 + panel.width, y2: y, stroke: index == 0 ? "#888888" : "#e3e3e3")
                svg.text(SVG.number(value), x: x0 - 8, y: y + 4, size: 11, anchor: .end, fill: "#444444", className: "y-tick")
            }
            for (position, label) in xTicks {
                let x = x0 + panel.width * position
                svg.line(x1: x, y1: panelTop + panel.height, x2: x, y2: panelTop + panel.height + 5, stroke: "#888888")
                svg.text(label, x: x, y: panelTop + panel.height + 19, size: 11, anchor: .middle, fill: "#444444", className: "x-tick")
            }
            svg.line(x1: x0, y1: panelTop, x2: x0, y2: panelTop + panel.height, stroke: "#888888")
            svg.text(xLabel, x: x0 + panel.width / 2, y: panelTop + panel.height + 40, size: 12, anchor: .middle, fill: "#333333")
            svg.text(yLabel, x: x0 - 42, y: panelTop + panel.height / 2, size: 12, anchor: .middle, fill: "#333333", vertical: true)
        }
        let k = EvaluationReport.hitCurveLength
        func kX(_ k1: Int) -> Double { Double(k1 - 1) / Double(k - 1) }
        axes(x0: leftPanel, heading: "hit@k: the true target among the first k", xLabel: "k", yLabel: "hit@k",
             xTicks: (1...k).map { (kX($0), "\($0)") })
        axes(x0: rightPanel, heading: "Calibration of the first choice", xLabel: "predicted probability of the first choice",
             yLabel: "observed: share of first choices that were right", xTicks: (0...5).map { (Double($0) / 5, SVG.number(Double($0) / 5)) })
        // The calibrated diagonal.
        svg.line(x1: rightPanel, y1: panelTop + panel.height, x2: rightPanel + panel.width, y2: panelTop, stroke: "#aaaaaa", dash: "5 4",
                 className: "diagonal")

        if reports.allSatisfy({ $0.calibration.isEmpty }) {
            svg.text("no first-choice probabilities were recorded (ranks only)", x: rightPanel + panel.width / 2, y: panelTop + panel.height / 2,
                     size: 12, anchor: .middle, fill: "#777777", className: "no-calibration")
        }
        func point(_ x0: Double, _ x: Double, _ y: Double) -> (x: Double, y: Double) {
            (x0 + panel.width * x, panelTop + panel.height * (1 - min(1, max(0, y))))
        }
        // Calibration points: the area grows with the bin's donations, on one scale for every model.
        let largest = Double(reports.flatMap { $0.calibration.map(\.count) }.max() ?? 1)
        func calibrationRadius(_ count: Int) -> Double { 2.5 + 4.5 * (Double(count) / max(1, largest)).squareRoot() }
        for (index, report) in reports.enumerated() {
            let colour = Self.palette[index % Self.palette.count]
            let model = report.result.model
            let dash = dash(index, model: model, models: reports.map(\.result.model))
            let lineWidth = model == highlighted ? 3.0 : 1.8
            // hit@k.
            let curve = report.hitAtK
            svg.group(className: "hit-curve") { svg in
                svg.polyline(curve.enumerated().map { point(leftPanel, kX($0.offset + 1), $0.element) }, stroke: colour, width: lineWidth,
                             dash: dash, tooltip: "\(model): hit@k for k = 1 ... \(k)")
                for (offset, value) in curve.enumerated() {
                    let p = point(leftPanel, kX(offset + 1), value)
                    Self.mark(&svg, index, x: p.x, y: p.y, r: 3.5, fill: colour, className: "hit-point",
                              tooltip: "\(model): hit@\(offset + 1) = \(String(format: "%.3f", value))")
                }
            }
            // Calibration: bins with donations, the point's area growing with the count.
            let bins = report.calibration.filter { $0.count > 0 }
            guard !bins.isEmpty else { continue }
            svg.group(className: "calibration-curve") { svg in
                svg.polyline(bins.map { point(rightPanel, $0.meanPredicted, $0.observed) }, stroke: colour, width: lineWidth,
                             dash: dash, tooltip: "\(model): calibration of the first choice")
                for bin in bins {
                    let p = point(rightPanel, bin.meanPredicted, bin.observed)
                    Self.mark(&svg, index, x: p.x, y: p.y, r: calibrationRadius(bin.count), fill: colour, className: "calibration-point",
                              tooltip: "\(model): first choice predicted \(SVG.number(bin.lower))-\(SVG.number(bin.upper)): "
                                  + "\(bin.count) donations, mean predicted \(String(format: "%.3f", bin.meanPredicted)), "
                                  + "right \(String(format: "%.3f", bin.observed)) of the time")
                }
            }
        }

        // Legend: one entry per model (its line, dash and marker) with its hit@1, hit@4 and hit@10.
        var legendX = 16.0
        var legendY = legendTop
        for (index, report) in reports.enumerated() {
            let colour = Self.palette[index % Self.palette.count]
            let curve = report.hitAtK
            var text = "\(report.result.model): " + [1, 4, 10].filter { $0 <= k }
                .map { "hit@\($0) \(String(format: "%.3f", curve[$0 - 1]))" }.joined(separator: ", ")
            if report.calibration.isEmpty { text += " (no calibration: probabilities not recorded)" }
            if report.result.model == highlighted { text += " (default)" }
            let itemWidth = 36 + SVG.textWidth(text, size: 11) + 22
            if legendX + itemWidth > width - 16 {
                legendX = 16
                legendY += 22
            }
            svg.group(className: "legend-item") { svg in
                svg.text(text, x: legendX + 34, y: legendY + 4, size: 11)
                svg.line(x1: legendX, y1: legendY, x2: legendX + 28, y2: legendY, stroke: colour, width: 2.5,
                         dash: dash(index, model: report.result.model, models: reports.map(\.result.model)))
                Self.mark(&svg, index, x: legendX + 14, y: legendY, r: 3.5, fill: colour)
            }
            legendX += itemWidth
        }
        let calibratedText = "calibrated: observed = predicted"
        if legendX + 50 + SVG.textWidth(calibratedText, size: 11) > width - 16 {
            legendX = 16
            legendY += 22
        }
        svg.group(className: "legend-item") { svg in
            svg.line(x1: legendX, y1: legendY, x2: legendX + 22, y2: legendY, stroke: "#aaaaaa", dash: "5 4")
            svg.text(calibratedText, x: legendX + 28, y: legendY + 4, size: 11)
        }
        // The size scale of the calibration points (one scale for every model).
        let scaleY = legendY + 30
        var scaleX = 16.0
        let scaleText = "Calibration points: the first choices whose probability fell in a tenth of [0, 1]; area by donations:"
        svg.text(scaleText, x: scaleX, y: scaleY + 4, size: 11, fill: "#555555", className: "size-scale")
        scaleX += SVG.textWidth(scaleText, size: 11) + 14
        let largestCount = Int(largest)
        for count in Array(Set([1, max(1, largestCount / 4), largestCount])).sorted() where largestCount > 0 {
            let r = calibrationRadius(count)
            svg.circle(cx: scaleX + r, cy: scaleY, r: r, fill: "#999999", className: "size-scale-point")
            svg.text("\(count)", x: scaleX + 2 * r + 4, y: scaleY + 4, size: 11, fill: "#555555", className: "size-scale-label")
            scaleX += 2 * r + 10 + SVG.textWidth("\(count)", size: 11) + 12
        }
        svg.text("Hover a point for its numbers.", x: 16, y: scaleY + 24, size: 11, fill: "#555555")
        svg.height = scaleY + 38
        return svg.document()
    }
}
