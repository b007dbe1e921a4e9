import Foundation
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

@Suite("Donation log files without a store")
struct DonationLogFileTests {
    @Test func badLinesAreNamedAndTheRestIsRead() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("log.jsonl", """
            {"app":"a","intent":"open","date":"2026-01-05T07:00:00Z"}

            {"app":"b","intent":"open"}
            not json\r
            {"user":"u2","app":"c","intent":"open","date":1767600000}
            """)
        let contents = try DonationLogFile.readAll(path: path)
        #expect(contents.donations.map(\.app) == ["a", "c"])
        #expect(contents.problems.map(\.line) == [3, 4])
        #expect(contents.problems[0].error == DonationLineError(field: "date", reason: "missing (required)"))
    }

    @Test func writerRoundTripsCanonicalLines() throws {
        let directory = try TemporaryDirectory()
        let donations = [sample(minutes: 0, group: "home"), sample(user: "u2", app: "com.example.mail", intent: "open", minutes: 5, context: ["focus": "work"])]
        let path = directory.file("out.jsonl")
        let writer = try DonationLogWriter(path: path)
        for donation in donations { try writer.write(donation) }
        try writer.close()
        #expect(writer.written == 2)
        #expect(try DonationLogFile.readAll(path: path).donations == donations)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == donations.map { DonationLineCodec.encode($0) + "\n" }.joined())
    }

    @Test func missingFileIsAnIOError() {
        #expect(storeError { _ = try DonationLogFile.readAll(path: "/nonexistent/log.jsonl") }?.code == .io)
    }
}
