import Foundation

// MARK: - A picture of a simulated day

/// Draws a `StackSimulation`: one row per widget, one column per step (a
/// minute), hours marked along the top.
///
/// In each row a light bar rises with the widget's score (0 at the bottom of
/// the row, 1 at its top); the row is filled solid where the widget is on top
/// (blue when Smart Rotate put it there, orange when Widget Suggestions
/// inserted it, grey when the stack rests on it); a thin orange band at the
/// bottom of the row marks the time an inserted widget spends in the stack.
public struct DayChart: Sendable {
    public var rowHeight = 26
    public var columnWidth = 1
    public var margin = 6

    public static let background = RGB(255, 255, 255)
    public static let grid = RGB(225, 225, 225)
    public static let label = RGB(40, 40, 40)
    public static let score = RGB(170, 195, 230)
    public static let rotated = RGB(45, 105, 190)
    public static let inserted = RGB(235, 135, 30)
    public static let resting = RGB(150, 150, 150)

    public init() {}

    /// Renders the simulation (labels on the clock `utcOffset` seconds east of UTC).
    public func render(_ simulation: StackSimulation, utcOffset: Int) -> Canvas {
        render(simulation, utcOffsetAt: { _ in utcOffset })
    }

    /// The steps that start an hour on the clock whose offset at an instant is
    /// `utcOffsetAt` (a zone through a DST change: 23 or 25 marks a day), with that hour.
    public static func hourMarks(_ simulation: StackSimulation, utcOffsetAt: (Date) -> Int) -> [(step: Int, hour: Int)] {
        var marks: [(step: Int, hour: Int)] = []
        for (step, date) in simulation.steps.enumerated() {
            let seconds = Int((date.timeIntervalSince1970 + Double(utcOffsetAt(date))).rounded(.down))
            let secondOfDay = ((seconds % 86_400) + 86_400) % 86_400
            guard secondOfDay % 3600 < Int(simulation.stepLength.rounded()) || step == 0 else { continue }
            marks.append((step, secondOfDay / 3600))
        }
        return marks
    }

    /// Renders the simulation, its hour labels on the clock whose offset at an instant is `utcOffsetAt`.
    public func render(_ simulation: StackSimulation, utcOffsetAt: (Date) -> Int) -> Canvas {
        let labels = simulation.rows.map(\.displayName)
        let labelWidth = (labels.map(Canvas.textWidth).max() ?? 0) + 2 * margin
        let headerHeight = PixelFont.height + 2 * margin
        let steps = max(1, simulation.steps.count)
        let width = labelWidth + steps * columnWidth + margin
        let rowsBottom = headerHeight + max(1, simulation.rows.count) * rowHeight
        let height = rowsBottom + 2 * margin + PixelFont.height + margin
        var canvas = Canvas(width: width, height: height, background: Self.background)

        // Hour marks.
        for (step, hour) in Self.hourMarks(simulation, utcOffsetAt: utcOffsetAt) {
            let x = labelWidth + step * columnWidth
            canvas.fill(x: x, y: headerHeight - 2, width: 1, height: rowsBottom - headerHeight + 2, Self.grid)
            if hour % 3 == 0 { canvas.text(String(hour), x: x + 2, y: margin, Self.label) }
        }
        // Rows.
        for (row, label) in labels.enumerated() {
            let top = headerHeight + row * rowHeight
            canvas.text(label, x: margin, y: top + (rowHeight - PixelFont.height) / 2, Self.label)
            canvas.fill(x: labelWidth, y: top + rowHeight - 1, width: steps * columnWidth, height: 1, Self.grid)
            for step in 0..<simulation.steps.count {
                let x = labelWidth + step * columnWidth
                let inner = rowHeight - 4
                if simulation.topRow[step] == row {
                    let colour: RGB
                    switch simulation.topReason[step] {
                    case .inserted: colour = Self.inserted
                    case .rotated: colour = Self.rotated
                    case .resting: colour = Self.resting
                    }
                    canvas.fill(x: x, y: top + 2, width: columnWidth, height: inner, colour)
                    continue
                }
                let bar = Int((min(1, simulation.scores[row][step]) * Double(inner)).rounded())
                if bar > 0 { canvas.fill(x: x, y: top + 2 + inner - bar, width: columnWidth, height: bar, Self.score) }
                if simulation.insertedRows[row][step] { canvas.fill(x: x, y: top + rowHeight - 4, width: columnWidth, height: 2, Self.inserted) }
            }
        }
        // Legend.
        var x = labelWidth
        let y = rowsBottom + 2 * margin
        for (colour, text) in [(Self.rotated, "rotated to"), (Self.inserted, "inserted"), (Self.resting, "resting"), (Self.score, "score")] {
            canvas.fill(x: x, y: y, width: PixelFont.height, height: PixelFont.height, colour)
            canvas.text(text, x: x + PixelFont.height + 4, y: y, Self.label)
            x += PixelFont.height + 4 + Canvas.textWidth(text) + 3 * margin
        }
        return canvas
    }
}
