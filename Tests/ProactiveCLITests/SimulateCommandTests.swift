import Foundation
import ProactiveCore
import Testing

extension CommandTests {
    /// `simulate --shape aggregated` writes context rows with counts, the same file for the same seed;
    /// options of the other shape are refused; `evaluate --jobs` gives the same ranks for 1 and 2 workers.
    @Suite("simulate --shape aggregated and evaluate --jobs")
    struct SimulateCommandTests {
        static func temporary(_ name: String) -> String {
            FileManager.default.temporaryDirectory.appendingPathComponent("proactive-simulate-\(UUID().uuidString)-\(name)").path
        }

        @Test("simulate --shape aggregated: the same seed gives the same bytes, in a file and on standard output (-o -)")
        func aggregatedRowsAreReproducibleAndCounted() async throws {
            let first = Self.temporary("a.jsonl")
            defer { try? FileManager.default.removeItem(atPath: first) }
            let arguments = ["simulate", "--shape", "aggregated", "--users", "12", "--rows-per-user", "40", "--seed", "3", "--days", "28"]
            let run = await proactive(arguments + ["-o", first])
            #expect(run.status == 0, "\(run)")
            #expect(run.error.contains("aggregated"))
            let printed = await proactive(arguments + ["-o", "-"])
            let text = try String(contentsOfFile: first, encoding: .utf8)
            #expect(!text.isEmpty && printed.output == text, "\(printed.status) \(printed.error)")
            let rows = try text.split(separator: "\n").map { try DonationLineCodec.decode(String($0)) }
            #expect(Set(rows.map(\.user)).count == 12)
            #expect(rows.allSatisfy { $0.count >= 1 && $0.context["daypart"] != nil && $0.context["place"] != nil })
            #expect(rows.contains { $0.count > 1 })
        }

        @Test(arguments: [
            (["--shape", "aggregated", "--noise", "2"], "--drift-day, --noise and --no-context are for --shape sequential"),
            (["--rows-per-user", "50"], "--rows-per-user is for --shape aggregated"),
            (["--shape", "aggregated", "--days", "6"], "--days must be at least 7 with --shape aggregated"),
            (["--shape", "aggregated", "--rows-per-user", "0"], "--rows-per-user must be between 1 and 1000000"),
            (["--shape", "ordered"], "ordered"),
        ])
        func badOptionsAreRefused(_ options: [String], _ message: String) async {
            let run = await proactive(["simulate"] + options + ["-o", Self.temporary("x.jsonl")])
            #expect(run.status == 64, "\(run)")
            #expect(run.error.contains(message), "\(run)")
            #expect(run.output.isEmpty)
        }

        @Test func oneJobAndTwoGiveTheSameRanks() async throws {
            let log = Self.temporary("log.jsonl"), train = Self.temporary("train.jsonl"), test = Self.temporary("test.jsonl")
            let ranks = [Self.temporary("r1.txt"), Self.temporary("r2.txt")]
            defer { for path in [log, train, test] + ranks { try? FileManager.default.removeItem(atPath: path) } }
            _ = await proactive(["simulate", "--shape", "aggregated", "--users", "6", "--rows-per-user", "30", "--seed", "9", "-o", log])
            let split = await proactive(["split", log, "--by", "random", "--seed", "1", "--train-share", "0.75", "--train", train, "--test", test])
            #expect(split.status == 0, "\(split)")
            for (jobs, path) in zip(["1", "2"], ranks) {
                let run = await proactive(["evaluate", "--train", train, "--test", test, "--model", "mfu", "--jobs", jobs, "--quiet",
                                           "--ranks-out", path])
                #expect(run.status == 0, "\(run)")
            }
            let one = try String(contentsOfFile: ranks[0], encoding: .utf8)
            let two = try String(contentsOfFile: ranks[1], encoding: .utf8)
            #expect(!one.isEmpty && one == two)
            let zero = await proactive(["evaluate", "--train", train, "--test", test, "--jobs", "0"])
            #expect(zero.status == 64 && zero.error.contains("--jobs must be at least 1"))
        }
    }
}
