import Foundation
import Testing

extension CommandTests {
    /// Bad input gives a clear message on standard error, nothing on standard
    /// output, and a non-zero exit status; `predict`, `suggest` and `stack` parse
    /// the moment's options the same way.
    @Suite("bad input to the commands")
    struct BadInputCommandTests {
        struct Case: CustomTestStringConvertible, Sendable {
            var arguments: [String]
            var message: String
            var status: Int32 = 64  // ArgumentParser's validation failure
            var testDescription: String { arguments.joined(separator: " ") }
        }

        static let momentCases: [Case] = [
            Case(arguments: ["-k", "0"], message: "-k must be an integer from 1 to 100, found 0"),
            Case(arguments: ["-k", "101"], message: "-k must be an integer from 1 to 100, found 101"),
            Case(arguments: ["--context", "x"], message: "--context wants KEY=VALUE, found \"x\""),
            Case(arguments: ["--context", "=x"], message: "--context wants KEY=VALUE, found \"=x\""),
            Case(arguments: ["--context", "a=1", "--context", "a=2"], message: "--context a is given twice"),
            Case(arguments: ["--at", "garbage"], message: "--at: "),
            Case(arguments: ["--at", "2026-11-20T25:00"], message: "time of day out of range"),
            Case(arguments: ["--model", "nosuch"], message: "model \"nosuch\" keeps no live state; use one of blend"),
            Case(arguments: ["--timezone", "Mars/Olympus"], message: "unknown time zone \"Mars/Olympus\""),
            Case(arguments: ["--user", "nobody"], message: "user nobody has no donations; the store's users: ", status: 1),
            Case(arguments: ["--frobnicate"], message: "Unknown option '--frobnicate'"),
        ]

        @Test(arguments: ["predict", "suggest"], momentCases)
        func momentOptions(command: String, bad: Case) async throws {
            let store = try await CLIStore.sample(trained: false)
            let run = await proactive([command, "--user", "me", "--at", "2026-11-20T07:00"] + bad.arguments + ["--store", store.path])
            #expect(run.status == bad.status, "\(run)")
            #expect(run.output.isEmpty, "\(run)")
            #expect(run.error.contains(bad.message), "\(run)")
            #expect(run.error.hasPrefix("Error: "), "\(run)")
        }

        static let stackCases: [Case] = [
            Case(arguments: ["--day", "2026-13-45"], message: "--day wants a calendar day such as 2026-11-20, found \"2026-13-45\""),
            Case(arguments: ["--day", "2026-11-20T00:00"], message: "--day wants a calendar day"),
            Case(arguments: ["--widgets", ","], message: "--widgets needs at least one widget name"),
            Case(arguments: ["--widgets", "weather,weather"], message: "--widgets: the stack names weather.forecast (Cupertino) twice", status: 64),
            Case(arguments: ["--widgets", "nosuch"], message: "--widgets: no widget named \"nosuch\"", status: 64),
            Case(arguments: ["--context", "a=1", "--context", "a=2"], message: "--context a is given twice"),
            Case(arguments: ["--model", "nosuch"], message: "model \"nosuch\" keeps no live state"),
        ]

        @Test(arguments: stackCases)
        func stackOptions(bad: Case) async throws {
            let store = try await CLIStore.sample(trained: false)
            var arguments = ["stack", "--user", "me", "--widgets", "weather,reminders", "--day", "2026-11-20", "--timezone", "America/Los_Angeles"]
            arguments += bad.arguments + ["--store", store.path]
            let run = await proactive(arguments)
            #expect(run.status == bad.status, "\(run)")
            #expect(run.output.isEmpty, "\(run)")
            #expect(run.error.contains(bad.message), "\(run)")
        }

        /// A store that does not exist is named, and no file is created.
        @Test(arguments: ["predict", "suggest", "models"])
        func missingStore(command: String) async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-cli-\(UUID().uuidString)")
            let path = directory.appendingPathComponent("none.sqlite").path
            let run = await proactive(command == "models" ? ["models", "list", "--store", path] : [command, "--user", "me", "--store", path])
            #expect(run.status == 1, "\(run)")
            #expect(run.error.contains("no store at \(path)"), "\(run)")
            #expect(!FileManager.default.fileExists(atPath: path))
        }

        /// Help and the version go to standard output with status 0.
        @Test func helpAndVersion() async throws {
            let help = await proactive(["predict", "--help"])
            #expect(help.status == 0)
            #expect(help.output.contains("USAGE: proactive predict"), "\(help)")
            #expect(help.error.isEmpty)
            let version = await proactive(["--version"])
            #expect(version.status == 0)
            #expect(version.output.wholeMatch(of: /[0-9]+\.[0-9]+\.[0-9]+ \(store schema .+, model format [0-9]+\)\n/) != nil, "\(version)")
        }
    }
}
