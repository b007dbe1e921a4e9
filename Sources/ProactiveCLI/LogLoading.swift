import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - Helpers shared by the log commands

/// A command-line failure whose message is already complete (`FILE:LINE: field: reason`).
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
}

/// Reads a whole donation log for a command that must not work on part of it.
///
/// - Throws: `CommandFailure` naming up to 20 malformed lines as `FILE:LINE: field: reason`
///   (and how many more), or the file error.
func loadDonationLog(_ path: String) throws -> [Donation] {
    let contents = try DonationLogFile.readAll(path: path)
    guard contents.problems.isEmpty else {
        var lines = contents.problems.prefix(DeviceLogSummary.problemLimit).map { "\(path):\($0.line): \($0.error)" }
        if contents.problems.count > lines.count { lines.append("... and \(contents.problems.count - lines.count) more malformed lines") }
        lines.append("\(path): \(contents.problems.count) malformed line\(contents.problems.count == 1 ? "" : "s"); fix or remove them (proactive import skips them)")
        throw CommandFailure(description: lines.joined(separator: "\n"))
    }
    return contents.donations
}

/// A donation log writer for `path`; `-` is the command's standard output (`Output`).
/// - Throws: `StoreError.io` naming a file that cannot be created.
func openLogWriter(_ path: String) throws -> DonationLogWriter {
    path == "-" ? DonationLogWriter(name: "standard output", writingBlocks: Output.writeChecked) : try DonationLogWriter(path: path)
}

/// The IANA zone named by a `--timezone` option, if given.
func parseTimeZone(_ name: String?, argument: String = "--timezone") throws -> TimeZone? {
    guard let name else { return nil }
    guard let zone = TimeZone(identifier: name) else { throw ValidationError("\(argument): \(unknownTimeZone(name))") }
    return zone
}

/// `unknown time zone "Europe/Berln" (did you mean Europe/Berlin?)`, or an example of an IANA name.
func unknownTimeZone(_ name: String) -> String {
    if let near = Spelling.suggestion(for: name, among: TimeZone.knownTimeZoneIdentifiers) {
        return "unknown time zone \"\(name)\" (did you mean \(near)?)"
    }
    return "unknown time zone \"\(name)\" (use an IANA name such as America/New_York)"
}

/// Intent definitions from a `--definitions` file (none when not given).
func loadDefinitions(_ path: String?) throws -> IntentDefinitionSet {
    guard let path else { return IntentDefinitionSet() }
    let text: String
    do {
        text = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
        throw CommandFailure(description: "\(path): cannot be read (\(error.localizedDescription))")
    }
    do {
        return try IntentDefinitionSet(IntentDefinitionSet.parse(text))
    } catch {
        throw CommandFailure(description: "\(path): \(error)")
    }
}

/// Writes a text file whole.
func writeTextFile(_ text: String, to path: String) throws {
    do {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    } catch {
        throw CommandFailure(description: "\(path): cannot be written (\(error.localizedDescription))")
    }
}
