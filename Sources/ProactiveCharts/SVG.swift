import Foundation

// MARK: - A small SVG writer

/// Builds an SVG 1.1 document as text: shapes, text in real fonts (the
/// viewer's, through `font-family`) and `<title>` tooltips that browsers show
/// on hover.
///
/// ```swift
/// var svg = SVG(width: 200, height: 100, title: "Example")
/// svg.rect(x: 10, y: 10, width: 50, height: 20, fill: "#2d69be", tooltip: "a bar")
/// svg.text("hello", x: 10, y: 60, size: 14)
/// let text = svg.document()
/// ```
public struct SVG: Sendable {
    public enum Anchor: String, Sendable { case start, middle, end }

    public let width: Double
    public var height: Double
    public let title: String
    private var body: [String] = []
    private var indent = 1

    /// The font stack: fonts most systems have, then the generic family.
    public static let fontFamily = "DejaVu Sans, Verdana, Helvetica, Arial, sans-serif"

    public init(width: Double, height: Double, title: String) {
        self.width = width
        self.height = height
        self.title = title
    }

    /// The whole document, with a white background.
    public func document() -> String {
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\#(Self.number(width))" height="\#(Self.number(height))" "#
                + #"viewBox="0 0 \#(Self.number(width)) \#(Self.number(height))" font-family="\#(Self.escape(Self.fontFamily))">"#,
            "  <title>\(Self.escape(title))</title>",
            ##"  <rect x="0" y="0" width="\##(Self.number(width))" height="\##(Self.number(height))" fill="#ffffff"/>"##,
        ]
        lines += body
        lines.append("</svg>")
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: Shapes

    /// A group whose contents share `tooltip` (shown on hover) and an optional class name.
    public mutating func group(tooltip: String? = nil, className: String? = nil, _ contents: (inout SVG) -> Void) {
        var attributes = ""
        if let className { attributes += #" class="\#(Self.escape(className))""# }
        emit("<g\(attributes)>")
        indent += 1
        if let tooltip { emit("<title>\(Self.escape(tooltip))</title>") }
        contents(&self)
        indent -= 1
        emit("</g>")
    }

    public mutating func rect(x: Double, y: Double, width: Double, height: Double, fill: String, opacity: Double? = nil,
                              stroke: String? = nil, tooltip: String? = nil, className: String? = nil) {
        var attributes = #"x="\#(Self.number(x))" y="\#(Self.number(y))" width="\#(Self.number(max(0, width)))" "#
            + #"height="\#(Self.number(max(0, height)))" fill="\#(fill)""#
        if let opacity { attributes += #" fill-opacity="\#(Self.number(opacity))""# }
        if let stroke { attributes += #" stroke="\#(stroke)""# }
        element("rect", attributes, className: className, tooltip: tooltip)
    }

    public mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1,
                              dash: String? = nil, className: String? = nil) {
        var attributes = #"x1="\#(Self.number(x1))" y1="\#(Self.number(y1))" x2="\#(Self.number(x2))" y2="\#(Self.number(y2))" "#
            + #"stroke="\#(stroke)" stroke-width="\#(Self.number(width))""#
        if let dash { attributes += #" stroke-dasharray="\#(dash)""# }
        element("line", attributes, className: className, tooltip: nil)
    }

    /// An open line through `points`.
    public mutating func polyline(_ points: [(x: Double, y: Double)], stroke: String, width: Double = 1.5, dash: String? = nil,
                                  className: String? = nil, tooltip: String? = nil) {
        guard !points.isEmpty else { return }
        var attributes = #"points="\#(points.map { "\(Self.number($0.x)),\(Self.number($0.y))" }.joined(separator: " "))" "#
            + #"fill="none" stroke="\#(stroke)" stroke-width="\#(Self.number(width))" stroke-linejoin="round""#
        if let dash { attributes += #" stroke-dasharray="\#(dash)""# }
        element("polyline", attributes, className: className, tooltip: tooltip)
    }

    /// A closed, filled shape through `points`.
    public mutating func polygon(_ points: [(x: Double, y: Double)], fill: String, className: String? = nil, tooltip: String? = nil) {
        guard !points.isEmpty else { return }
        let attributes = #"points="\#(points.map { "\(Self.number($0.x)),\(Self.number($0.y))" }.joined(separator: " "))" fill="\#(fill)""#
        element("polygon", attributes, className: className, tooltip: tooltip)
    }

    public mutating func circle(cx: Double, cy: Double, r: Double, fill: String, stroke: String? = nil,
                                className: String? = nil, tooltip: String? = nil) {
        var attributes = #"cx="\#(Self.number(cx))" cy="\#(Self.number(cy))" r="\#(Self.number(r))" fill="\#(fill)""#
        if let stroke { attributes += #" stroke="\#(stroke)""# }
        element("circle", attributes, className: className, tooltip: tooltip)
    }

    public mutating func text(_ text: String, x: Double, y: Double, size: Double = 12, anchor: Anchor = .start, bold: Bool = false,
                              fill: String = "#222222", vertical: Bool = false, className: String? = nil, tooltip: String? = nil) {
        var attributes = #"x="\#(Self.number(x))" y="\#(Self.number(y))" font-size="\#(Self.number(size))" fill="\#(fill)""#
        if vertical { attributes += #" transform="rotate(-90 \#(Self.number(x)) \#(Self.number(y)))""# }
        if anchor != .start { attributes += #" text-anchor="\#(anchor.rawValue)""# }
        if bold { attributes += #" font-weight="bold""# }
        if let className { attributes += #" class="\#(Self.escape(className))""# }
        var inner = Self.escape(text)
        if let tooltip { inner = "<title>\(Self.escape(tooltip))</title>" + inner }
        emit("<text \(attributes)>\(inner)</text>")
    }

    // MARK: Text helpers

    /// An estimate of the width of `text` at `size` in a sans-serif font (for layout only).
    public static func textWidth(_ text: String, size: Double) -> Double {
        Double(text.count) * size * 0.6
    }

    /// `value` with at most two decimals and no trailing zeros (`12`, `3.5`, `0.25`).
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        var text = String(format: "%.2f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    /// `text` with the five XML special characters escaped, and the characters XML 1.0 forbids dropped.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    // MARK: Output

    private mutating func element(_ name: String, _ attributes: String, className: String?, tooltip: String?) {
        var attributes = attributes
        if let className { attributes += #" class="\#(Self.escape(className))""# }
        if let tooltip {
            emit("<\(name) \(attributes)><title>\(Self.escape(tooltip))</title></\(name)>")
        } else {
            emit("<\(name) \(attributes)/>")
        }
    }

    private mutating func emit(_ line: String) {
        body.append(String(repeating: "  ", count: indent) + line)
    }
}
