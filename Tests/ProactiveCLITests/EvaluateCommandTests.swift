import Foundation
import ProactiveCore
import Testing

extension CommandTests {
    /// split and evaluate on the sample: where summaries and reports go, and the online evaluation through the engine.
    @Suite("split and evaluate")
    struct EvaluateCommandTests {
        /// The sample split into train.jsonl and test.jsonl beside a scratch store; returns the store and the split's run.
        static func split() async throws -> (CLIStore, train: String, test: String, run: CommandRun) {
            let store = try CLIStore()
            let train = store.directory.appendingPathComponent("train.jsonl").path
            let test = store.directory.appendingPathComponent("test.jsonl").path
            let run = await proactive(["split", Sample.donations, "--train", train, "--test", test])
            try #require(run.status == 0, "\(run)")
            return (store, train, test, run)
        }

        @Test("--version; '-' is standard output for evaluate --report; summaries on standard error")
        func oneVocabulary() async throws {
            let version = await proactive(["--version"])
            #expect(version.output.wholeMatch(of: /[0-9]+\.[0-9]+\.[0-9]+ \(store schema v[0-9]+_[a-z_]+, model format [0-9]+\)\n/) != nil,
                    "\(version)")
            let (scratch, train, test, split) = try await Self.split()
            #expect(split.output.isEmpty && split.error.split(separator: "\n").contains { $0.hasPrefix("split 283 donations") },
                    "split: summary not alone on standard error: \(split)")
            let evaluate = await proactive(["evaluate", "--train", train, "--test", test, "--report", "-", "--quiet"])
            try #require(evaluate.status == 0, "\(evaluate)")
            let report = try evaluate.json()
            #expect((report["events"]?.integer ?? 0) > 0 && report["hit@1"] != nil && report["mrr"] != nil,
                    "evaluate --report - did not write the JSON report to standard output: \(evaluate)")
            #expect(evaluate.error.contains("| model | hit@1"), "evaluate --report -: the table is not on standard error: \(evaluate)")
            #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/-"), "evaluate --report - wrote a file named -")
            withExtendedLifetime(scratch) {}
        }

        @Test("live models: the online evaluation walked through the engine (rank, donate, learn) gives the same ranks")
        func throughTheEngine() async throws {
            let (store, train, test, _) = try await Self.split()
            let harness = store.directory.appendingPathComponent("harness.txt").path
            let engine = store.directory.appendingPathComponent("engine.txt").path
            let online = await proactive(["evaluate", "--train", train, "--test", test, "--online", "--quiet", "--ranks-out", harness])
            try #require(online.status == 0, "\(online)")
            let walked = await proactive(["evaluate", "--train", train, "--test", test, "--online", "--quiet", "--through-engine", "--ranks-out", engine])
            try #require(walked.status == 0, "\(walked)")
            let ranks = try String(contentsOfFile: engine, encoding: .utf8)
            let lines = ranks.filter { $0 == "\n" }.count
            #expect(lines > 50, "--through-engine wrote \(lines) ranks")
            #expect(try String(contentsOfFile: harness, encoding: .utf8) == ranks, "evaluate --online and --through-engine ranks differ")
            let refused = await proactive(["evaluate", "--train", train, "--test", test, "--through-engine"])
            #expect(refused.status != 0, "--through-engine without --online was accepted: \(refused)")
            #expect((refused.output + refused.error).contains("add --online"), "\(refused)")
        }
    }
}
