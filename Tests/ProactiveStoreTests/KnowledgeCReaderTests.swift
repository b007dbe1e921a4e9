import Foundation
import GRDB
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

@Suite("knowledgeC reader")
struct KnowledgeCReaderTests {
    static func read(_ path: String, options: KnowledgeCOptions = KnowledgeCOptions()) throws -> ([Donation], DeviceLogSummary) {
        var donations: [Donation] = []
        let summary = try KnowledgeCReader.read(path: path, options: options) { donations.append($0) }
        return (donations, summary)
    }

    // MARK: The real files, spot-checked against raw rows

    /// Raw `/app/inFocus` rows of knowledgec-10.14.db: (Z_PK, ZSTARTDATE, ZVALUESTRING, ZSECONDSFROMGMT),
    /// with the instant and local time worked out by hand from the Cocoa epoch.
    static let rawRows: [(pk: Int, cocoa: Double, bundle: String, offset: Int, unix: Double, local: String)] = [
        (1, 565_366_977, "com.apple.loginwindow", -28_800, 1_543_674_177, "2018-12-01T06:22:57-08:00"),
        (11, 565_366_990, "com.apple.CoreLocationAgent", -28_800, 1_543_674_190, "2018-12-01T06:23:10-08:00"),
        (35, 565_808_234, "com.apple.finder", -28_800, 1_544_115_434, "2018-12-06T08:57:14-08:00"),
        (88, 579_016_642, "com.apple.finder", -25_200, 1_557_323_842, "2019-05-08T06:57:22-07:00"),
    ]

    @Test func inFocusLaunchesHaveTheirRawDates() throws {
        let (donations, summary) = try Self.read(DeviceLogs.path("knowledgec-10.14.db"))
        // 52 /app/inFocus + 11 /app/usage rows; 7 of the /app/usage rows are launches also in /app/inFocus
        // (same bundle id, same ZSTARTDATE: Z_PK pairs checked with sqlite3), kept once.
        #expect(summary.kept == 56)
        #expect(summary.dropped == [KnowledgeCReader.sameLaunchReason: 7])
        #expect(Set(donations).count == donations.count)
        for row in Self.rawRows {
            #expect(row.cocoa + KnowledgeCRecord.cocoaEpochOffset == row.unix)
            let match = donations.first { $0.app == row.bundle && $0.date == Date(timeIntervalSince1970: row.unix) }
            let donation = try #require(match, "Z_PK \(row.pk)")
            #expect(donation.intent == "open")
            #expect(donation.utcOffset == row.offset)
            #expect(DonationLineCodec.encode(donation).contains("\"date\":\"\(row.local)\""))
        }
        #expect(zip(donations, donations.dropFirst()).allSatisfy { $0.date <= $1.date })
    }

    @Test func olderFileReadsInOrderAndInAConfiguredZone() throws {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let (donations, summary) = try Self.read(DeviceLogs.path("knowledgec-10.13.db"), options: KnowledgeCOptions(user: "mac", timeZone: berlin))
        #expect(donations.count == 17 && summary.kept == 17)
        // Raw Z_PK 508: ZSTARTDATE 571510797 -> 2019-02-10T16:59:57Z; Z_PK 528: 572575137 -> 2019-02-23T00:38:57Z.
        #expect(donations[0].app == "com.apple.Installer-Progress")
        #expect(donations[0].date == Date(timeIntervalSince1970: 1_549_817_997))
        #expect(donations[16].app == "com.apple.finder")
        #expect(donations[16].date == Date(timeIntervalSince1970: 1_550_882_337))
        #expect(donations.allSatisfy { $0.utcOffset == 3600 && $0.user == "mac" })
        #expect(DonationLineCodec.encode(donations[0]).contains("\"date\":\"2019-02-10T17:59:57+01:00\""))
    }

    @Test func unknownStreamsAreCountedAndSkipped() throws {
        let (_, summary) = try Self.read(DeviceLogs.path("knowledgec-10.14.db"))
        #expect(summary.rowsRead == 92)
        #expect(summary.skipped == ["stream /activity/level": 10, "stream /app/activity": 7,
                                    "stream /safari/history": 7, "stream /display/isBacklit": 5])
        #expect(summary.problemCount == 0)
        #expect(summary.lines(source: "k.db").contains("  skipped 10: stream /activity/level"))
    }

    // MARK: Synthetic databases (intents are absent from the real files)

    static func makeDatabase(in directory: TemporaryDirectory, intentColumns: Bool) throws -> String {
        let path = directory.file("knowledgeC-\(intentColumns).db")
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE ZSOURCE (Z_PK INTEGER PRIMARY KEY, ZBUNDLEID VARCHAR, ZGROUPID VARCHAR);
                CREATE TABLE ZOBJECT (Z_PK INTEGER PRIMARY KEY, ZSOURCE INTEGER, ZSTRUCTUREDMETADATA INTEGER,
                    ZSECONDSFROMGMT INTEGER, ZSTARTDATE TIMESTAMP, ZSTREAMNAME VARCHAR, ZVALUESTRING VARCHAR);
                INSERT INTO ZSOURCE VALUES (1, 'com.example.messages', 'chat-42');
                INSERT INTO ZOBJECT VALUES
                    (1, 1, 1, -28800, 600000000, '/app/intents', 'com.example.messages'),
                    (2, NULL, NULL, -28800, 600000060.5, '/app/inFocus', 'com.example.mail'),
                    (3, NULL, NULL, -28800, 600000120, '/device/isPluggedIn', NULL),
                    (4, NULL, NULL, -28800, NULL, '/app/inFocus', 'com.example.mail'),
                    (5, NULL, NULL, -28800, 600000180, '/app/usage', NULL),
                    (6, 1, 2, -28800, 600000240, '/app/intents', NULL);
                """)
            if intentColumns {
                try db.execute(sql: """
                    CREATE TABLE ZSTRUCTUREDMETADATA (Z_PK INTEGER PRIMARY KEY,
                        Z_DKINTENTMETADATAKEY__INTENTCLASS VARCHAR, Z_DKINTENTMETADATAKEY__INTENTVERB VARCHAR);
                    INSERT INTO ZSTRUCTUREDMETADATA VALUES (1, 'INSendMessageIntent', 'SendMessage'), (2, 'OrderCoffeeIntent', NULL);
                    """)
            }
        }
        try queue.close()
        return path
    }

    @Test func intentRowsBecomeIntentDonations() throws {
        let directory = try TemporaryDirectory()
        let (donations, summary) = try Self.read(try Self.makeDatabase(in: directory, intentColumns: true))
        #expect(donations.count == 3)
        let message = donations[0]
        #expect(message.app == "com.example.messages" && message.intent == "INSendMessageIntent")
        #expect(message.parameters == ["verb": .string("SendMessage")])
        #expect(message.group == "chat-42")
        #expect(message.date == Date(timeIntervalSince1970: 600_000_000 + 978_307_200))
        #expect(message.utcOffset == -28_800)
        #expect(donations[1].app == "com.example.mail" && donations[1].date == Date(timeIntervalSince1970: 978_307_200 + 600_000_060.5))
        // Row 6 has no ZVALUESTRING: the source's bundle id stands in; no verb, no parameter.
        #expect(donations[2].app == "com.example.messages" && donations[2].intent == "OrderCoffeeIntent" && donations[2].parameters.isEmpty)
        #expect(summary.skipped == ["stream /device/isPluggedIn": 1])
        #expect(summary.problems.map(\.description) == ["ZOBJECT row 4: ZSTARTDATE: missing", "ZOBJECT row 5: ZVALUESTRING: missing bundle id"])
    }

    @Test func missingIntentColumnsAreNotFatal() throws {
        let directory = try TemporaryDirectory()
        let (donations, summary) = try Self.read(try Self.makeDatabase(in: directory, intentColumns: false))
        #expect(donations.map(\.app) == ["com.example.mail"])
        #expect(summary.dropped == ["/app/intents without intent metadata columns": 2])
        #expect(summary.notes.contains { $0.contains("no intent metadata columns") })
    }

    @Test func aDatabaseOfAnotherKindIsAnError() throws {
        let error = storeError { _ = try Self.read(DeviceLogs.path("app_usage")) }
        #expect(error?.code == .io)
        #expect(error?.message.contains("no table ZOBJECT") == true)
    }

    @Test func strictImportStopsAtAMalformedRow() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeDatabase(in: directory, intentColumns: true)
        let store = InMemoryDonationStore()
        let strict = try DonationImporter(store: store, options: ImportOptions(strict: true)).importKnowledgeC(path: path, options: KnowledgeCOptions())
        #expect(strict.store.aborted && strict.store.abortedBy?.contains("ZOBJECT row 4: ZSTARTDATE: missing") == true)
        #expect(try store.all().isEmpty)
        let lenient = try DonationImporter(store: store).importKnowledgeC(path: path, options: KnowledgeCOptions())
        #expect(lenient.store.imported == 3 && lenient.device.problemCount == 2)
    }

    /// Issue 16: a row whose names the store would refuse is a malformed row
    /// (named, skipped), never the end of the import.
    @Test func rowsWithNamesTheStoreRefusesAreMalformedRows() {
        let options = KnowledgeCOptions()
        func problem(_ record: KnowledgeCRecord) -> String? {
            guard case let .problem(problem) = record.convert(options: options) else { return nil }
            return problem.description
        }
        #expect(problem(KnowledgeCRecord(key: 1, stream: KnowledgeCRecord.inFocusStream, startDate: 600_000_000, valueString: "com.caf\u{E9}"))
            == "ZOBJECT row 1: ZVALUESTRING: a bundle identifier is printable ASCII without '/' or spaces (found U+00E9 at character 8)")
        #expect(problem(KnowledgeCRecord(key: 2, stream: KnowledgeCRecord.intentsStream, startDate: 600_000_000, valueString: "com.a",
                                         intentClass: "Send\u{0}Intent"))
            == "ZOBJECT row 2: Z_DKINTENTMETADATAKEY__INTENTCLASS: must not contain control characters (found U+0000 at character 5)")
        #expect(problem(KnowledgeCRecord(key: 3, stream: KnowledgeCRecord.inFocusStream, startDate: 600_000_000, valueString: "com.a")) == nil)
    }
}
