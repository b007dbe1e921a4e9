import ArgumentParser
import Foundation
import ProactiveCharts

// MARK: - --svg and --png

/// Where a command draws its chart: SVG text (any browser shows it), and a PNG
/// made from that SVG by rsvg-convert when it is installed.
struct ChartOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Draw the chart as SVG to this file ('-': standard output; the text then goes to standard error).",
                               valueName: "file"))
    var svg: String?

    @Option(help: ArgumentHelp("Draw the chart as PNG to this file, converting the SVG with rsvg-convert (Debian: librsvg2-bin).",
                               valueName: "file"))
    var png: String?

    /// True when the SVG takes standard output.
    var svgToStandardOutput: Bool { svg == "-" }

    var wanted: Bool { svg != nil || png != nil }

    func validate() throws {
        if png == "-" { throw ValidationError("--png writes a file; use --svg - for standard output") }
        if png != nil, PNGConverter.locate() == nil {
            throw ValidationError("--png needs \(PNGConverter.program), which is not installed (Debian/Ubuntu: apt-get install librsvg2-bin); "
                                  + "--svg FILE writes the chart without it")
        }
    }

    /// Writes the chart `draw` makes to the files asked for, and says so on standard error.
    func write(_ draw: () -> String) throws {
        guard wanted else { return }
        let text = draw()
        if let svg {
            if svg == "-" {
                try Output.writeChecked(text)
            } else {
                try writeTextFile(text, to: svg)
                printError("wrote \(svg)")
            }
        }
        if let png {
            do { try PNGConverter.convert(svg: text, to: png) } catch let failure as PNGConverter.Failure {
                throw CommandFailure(description: failure.description)
            }
            printError("wrote \(png) (with \(PNGConverter.program))")
        }
    }
}
