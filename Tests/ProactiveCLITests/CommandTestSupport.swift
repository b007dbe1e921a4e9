import Foundation
@testable import ProactiveCLI
import ProactiveCore
import Testing

// MARK: - Running commands in process

/// Every command test, one at a time: a command runs synchronously on a
/// thread of the cooperative pool, and several at once would starve the
/// other targets' tests running beside them (their time limits included).
@Suite("proactive commands", .serialized)
enum CommandTests {}

/// One command line run in process: its exit status and what it printed.
struct CommandRun: CustomStringConvertible {
    var arguments: [String]
    var status: Int32
    var output: String
    var error: String

    /// Standard output's lines (without the final newline's empty line).
    var lines: [String] {
        var lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Standard output as one JSON value.
    func json() throws -> JSONValue { try JSONParser.parse(output) }

    var description: String {
        "proactive \(arguments.joined(separator: " ")) -> exit \(status)\n--- stdout\n\(output)--- stderr\n\(error)"
    }
}

/// Runs `proactive ARGUMENTS` as the executable does (`Proactive.run`), capturing its output.
func proactive(_ arguments: [String]) async -> CommandRun {
    let capture = OutputCapture()
    let status = await Output.$capture.withValue(capture) { await Proactive.run(arguments: arguments) }
    return CommandRun(arguments: arguments, status: status, output: capture.standardOutput, error: capture.standardError)
}

/// The repository's bundled sample.
enum Sample {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("datasets/sample")
    static var donations: String { directory.appendingPathComponent("donations.jsonl").path }
    static var definitions: String { directory.appendingPathComponent("definitions.json").path }
    static func declaration(_ name: String) -> String { directory.appendingPathComponent("declarations/\(name)").path }

    /// The sample log's lines.
    static func lines() throws -> [String] {
        try String(contentsOfFile: donations, encoding: .utf8).split(separator: "\n").map(String.init)
    }
}

// MARK: - A store per test

/// A store file in a fresh temporary directory (removed with the fixture);
/// `run` passes `--store` to every command.
final class CLIStore: @unchecked Sendable {
    let directory: URL
    let path: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("store.sqlite").path
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func run(_ arguments: String...) async -> CommandRun { await run(arguments) }
    func run(_ arguments: [String]) async -> CommandRun { await proactive(arguments + ["--store", path]) }

    /// Runs a command that must succeed.
    @discardableResult
    func succeed(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) async throws -> CommandRun {
        try await succeed(arguments, sourceLocation: sourceLocation)
    }

    @discardableResult
    func succeed(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> CommandRun {
        let run = await run(arguments)
        try #require(run.status == 0, "\(run)", sourceLocation: sourceLocation)
        return run
    }

    /// The sample imported for user `me` on the Los Angeles clock, with its intent definitions,
    /// and (unless `trained` is false) the default model trained, as scripts/demo.sh does.
    static func sample(trained: Bool = true) async throws -> CLIStore {
        let store = try CLIStore()
        try await store.succeed("import", Sample.donations, "--user-timezone", "me=America/Los_Angeles", "--progress", "none")
        try await store.succeed("definitions", "add", Sample.definitions)
        if trained { try await store.succeed("train", "--quiet") }
        return store
    }
}

// MARK: - Reading JSON

extension JSONValue {
    var string: String? { if case let .string(value) = self { value } else { nil } }
    var number: Double? { if case let .number(value, _) = self { value } else { nil } }
    var integer: Int? { if case let .number(_, integer?) = self { Int(integer) } else { nil } }
    var array: [JSONValue]? { if case let .array(values) = self { values } else { nil } }
    var bool: Bool? { if case let .bool(value) = self { value } else { nil } }
    var isNull: Bool { if case .null = self { true } else { false } }
    /// An object's keys in order.
    var keys: [String]? { if case let .object(members) = self { members.map(\.0) } else { nil } }
}

/// target -> probability of a `predict --json` or `suggest --json` list.
func probabilities(_ rows: [JSONValue]) -> [String: Double] {
    Dictionary(rows.compactMap { row in row["target"]?.string.flatMap { target in row["probability"]?.number.map { (target, $0) } } },
               uniquingKeysWith: { first, _ in first })
}
