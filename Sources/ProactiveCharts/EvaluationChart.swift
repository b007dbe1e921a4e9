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
        for (index, report) in reports.enumerated() {
            let colour = Self.palette[index % Self.palette.count]
            let model = report.result.model
            let lineWidth = model == highlighted ? 3.0 : 1.8
            // hit@k.
            let curve = report.hitAtK
            svg.group(className: "hit-curve") { svg in
                svg.polyline(curve.enumerated().map { point(leftPanel, kX($0.offset + 1), $0.element) }, stroke: colour, width: lineWidth,
                             tooltip: "\(model): hit@k for k = 1 ... \(k)")
                for (offset, value) in curve.enumerated() {
                    let p = point(leftPanel, kX(offset + 1), value)
                    svg.circle(cx: p.x, cy: p.y, r: 3.5, fill: colour, className: "hit-point",
                               tooltip: "\(model): hit@\(offset + 1) = \(String(format: "%.3f", value))")
                }
            }
            // Calibration: bins with donations, the point's area growing with the count.
            let bins = report.calibration.filter { $0.count > 0 }
            guard !bins.isEmpty else { continue }
            let largest = Double(bins.map(\.count).max() ?? 1)
            svg.group(className: "calibration-curve") { svg in
                svg.polyline(bins.map { point(rightPanel, $0.meanPredicted, $0.observed) }, stroke: colour, width: lineWidth,
                             tooltip: "\(model): calibration of the first choice")
                for bin in bins {
                    let p = point(rightPanel, bin.meanPredicted, bin.observed)
                    svg.circle(cx: p.x, cy: p.y, r: 2.5 + 4.5 * (Double(bin.count) / largest).squareRoot(), fill: colour, className: "calibration-point",
                               tooltip: "\(model): first choice predicted \(SVG.number(bin.lower))-\(SVG.number(bin.upper)): "
                                   + "\(bin.count) donations, mean predicted \(String(format: "%.3f", bin.meanPredicted)), "
                                   + "right \(String(format: "%.3f", bin.observed)) of the time")
                }
            }
        }

        // Legend: one entry per model with its hit@1 and hit@10.
        var legendX = 16.0
        var legendY = legendTop
        for (index, report) in reports.enumerated() {
            let colour = Self.palette[index % Self.palette.count]
            let curve = report.hitAtK
            var text = "\(report.result.model): hit@1 \(String(format: "%.3f", curve[0])), hit@10 \(String(format: "%.3f", curve[k - 1]))"
            if report.calibration.isEmpty { text += " (no calibration: probabilities not recorded)" }
            if report.result.model == highlighted { text += " (default)" }
            let itemWidth = 30 + SVG.textWidth(text, size: 11) + 22
            if legendX + itemWidth > width - 16 {
                legendX = 16
                legendY += 22
            }
            svg.group(className: "legend-item") { svg in
                svg.line(x1: legendX, y1: legendY, x2: legendX + 22, y2: legendY, stroke: colour, width: 3)
                svg.text(text, x: legendX + 28, y: legendY + 4, size: 11)
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
        svg.text("Calibration points: the first choices whose probability fell in a tenth of [0, 1]; a larger point holds more donations. "
                 + "Hover a point for its numbers.", x: 16, y: legendY + 26, size: 11, fill: "#555555")
        svg.height = legendY + 40
        return svg.document()
    }
}
