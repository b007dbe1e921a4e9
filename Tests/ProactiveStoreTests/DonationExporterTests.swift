import Foundation
import ProactiveCore
@testable import ProactiveStore
import Testing

/// Export writes canonical lines in (user, date, insertion) order; canonical input round-trips byte for byte.
@Suite("DonationExporter")
struct DonationExporterTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    @Test func theFixtureIsCanonical() throws {
        for line in try Fixtures.text("canonical.jsonl").split(separator: "\n") {
            #expect(DonationLineCodec.encode(try DonationLineCodec.decode(String(line))) == String(line))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func importThenExportIsByteIdentical(kind: StoreKind) throws {
        let store = try kind.makeStore(in: directory)
        let input = try Fixtures.path("canonical.jsonl")
        let summary = try DonationImporter(store: store, options: ImportOptions(batchSize: 2)).importJSONLines(path: input)
        #expect(summary.rejected == 0)
        let output = directory.file("out.jsonl")
        let count = try DonationExporter(store: store, pageSize: 3).export(toPath: output)
        #expect(count == summary.imported)
        let original = try Data(contentsOf: URL(fileURLWithPath: input))
        let exported = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(exported == original)
        #expect(!FileManager.default.fileExists(atPath: output + ".partial"))
        #expect(try DonationExporter(store: store).exportedText() == String(decoding: original, as: UTF8.self))
    }

    @Test(arguments: StoreKind.allCases)
    func filtersByUserAppAndDates(kind: StoreKind) throws {
        let store = try kind.makeStore(in: directory)
        _ = try DonationImporter(store: store).importJSONLines(path: try Fixtures.path("canonical.jsonl"))
        let exporter = DonationExporter(store: store)
        let apps = { (filter: DonationFilter) in
            try exporter.exportedText(matching: filter).split(separator: "\n").map { try DonationLineCodec.decode(String($0)).app }
        }
        #expect(try apps(DonationFilter(user: "ben")) == ["com.example.shop", "com.example.weather"])
        #expect(try apps(DonationFilter(app: "com.example.weather")) == ["com.example.weather", "com.example.weather"])
        // 2026-11-20T15:00Z ..< 2026-11-21T00:00Z
        let span = DateSpan(start: Date(timeIntervalSince1970: sampleDay + 15 * 3600), end: Date(timeIntervalSince1970: sampleDay + 86_400))
        #expect(try apps(DonationFilter(dates: span)) == ["com.example.weather", "com.example.coffee", "com.example.calendar"])
        #expect(try apps(DonationFilter(user: "nobody")) == [])
    }

    @Test func exportOrderIsPerUserChronologicalWhateverTheImportOrder() throws {
        let store = InMemoryDonationStore()
        let lines = try Fixtures.text("canonical.jsonl").split(separator: "\n").map(String.init)
        let shuffled = [4, 0, 6, 2, 5, 1, 3].map { lines[$0] }
        let path = try directory.write("shuffled.jsonl", shuffled.joined(separator: "\n") + "\n")
        _ = try DonationImporter(store: store).importJSONLines(path: path)
        #expect(try DonationExporter(store: store).exportedText() == lines.joined(separator: "\n") + "\n")
    }

    @Test func exportingToAnUnwritablePlaceIsAnErrorNamingIt() throws {
        let store = InMemoryDonationStore()
        let target = directory.file("no/such/dir/out.jsonl")
        let error = storeError { try DonationExporter(store: store).export(toPath: target) }
        #expect(error?.code == .io)
        #expect(error?.message.contains(target) == true)
    }
}
