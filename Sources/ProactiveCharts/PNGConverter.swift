import Foundation

// MARK: - PNG through rsvg-convert

/// Turns SVG text into a PNG file with `rsvg-convert` (librsvg; Debian's
/// `librsvg2-bin`), found on `PATH`. Proactive draws no pixels itself.
public enum PNGConverter {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The program's name on `PATH`.
    public static let program = "rsvg-convert"

    /// The path of `rsvg-convert` on `path` (a `PATH`-style list), or nil.
    public static func locate(path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        for directory in (path ?? "").split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Writes `svg` as a PNG to `output`.
    /// - Throws: `Failure` when `rsvg-convert` is not installed, cannot be run, or fails (with its message).
    public static func convert(svg: String, to output: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) throws {
        guard let executable = locate(path: path) else {
            throw Failure(description: "\(output): a PNG needs \(program), which is not installed "
                          + "(Debian/Ubuntu: apt-get install librsvg2-bin); --svg FILE writes the chart without it")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-png-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("chart.svg")
        let converted = directory.appendingPathComponent("chart.png")
        try Data(svg.utf8).write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--format", "png", "--background-color", "white", "--output", converted.path, input.path]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw Failure(description: "\(executable) could not be run (\(error.localizedDescription))")
        }
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw Failure(description: "\(output): \(program) failed (exit \(process.terminationStatus))\(text.isEmpty ? "" : ": \(text)")")
        }
        // Moved into place only once whole, so a failed conversion leaves no half-written file.
        do {
            try Data(contentsOf: converted).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw Failure(description: "\(output): cannot be written (\(error.localizedDescription))")
        }
    }
}
