import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive convert

/// Converts a device log (or a donation log) into canonical donation JSON Lines.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a device log into donation JSON Lines (for evaluation and sharing).",
        discussion: """
            Reads FILE in --format (any format `import` reads) exactly as `import` does and \
            writes one canonical donation per line. A summary of what was kept, dropped and why goes \
            to standard error.

            Example:
              proactive convert --format android-usage datasets/device-logs/app_usage \\
                  --timezone America/New_York -o android.jsonl
              proactive convert --format fish fish_history -o shell.jsonl
            """
    )

    @Argument(help: "The log to read (a SQLite file for android-usage, knowledgec, firefox and chromium; - for standard input with jsonl).")
    var file: String

    @Option(help: ArgumentHelp(stringLiteral: LogFormat.help))
    var format: LogFormat = .jsonl

    @OptionGroup var log: DeviceLogOptions

    @Option(name: [.short, .customLong("output")], help: "Where to write the JSON Lines (- for standard output).")
    var output: String

    func validate() throws { try log.check(format: format, timeZoneForJSONLines: true) }

    func run() throws {
        let writer = try openLogWriter(output)
        let summary = try log.read(path: file, format: format) { try writer.write($0) }
        try writer.close()
        summary.forEach(printError)
        printError("wrote \(writer.written) donation\(writer.written == 1 ? "" : "s") to \(output)")
    }
}
