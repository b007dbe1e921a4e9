import Foundation
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
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

    // MARK: Issue 16, item 10: what --output may be

    func filled() throws -> InMemoryDonationStore {
        let store = InMemoryDonationStore()
        _ = try DonationImporter(store: store).importJSONLines(path: try Fixtures.path("canonical.jsonl"))
        return store
    }

    func fileType(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    @Test func aSymbolicLinkStaysALinkAndItsTargetIsReplaced() throws {
        let target = try directory.write("target.jsonl", "old\n")
        let link = directory.file("link.jsonl")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let count = try DonationExporter(store: try filled()).export(toPath: link)
        #expect(count == 7)
        #expect(fileType(link) == S_IFLNK)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == Fixtures.text("canonical.jsonl"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".partial") }.isEmpty)
    }

    @Test func aFIFOIsWrittenThroughNotReplaced() throws {
        let fifo = directory.file("pipe")
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)  // a reader, so the writer's open does not block
        #expect(reader >= 0)
        defer { close(reader) }
        let count = try DonationExporter(store: try filled()).export(toPath: fifo)
        #expect(count == 7)
        #expect(fileType(fifo) == S_IFIFO)
        var received = [UInt8](repeating: 0, count: 1 << 16)
        let length = read(reader, &received, received.count)
        #expect(String(decoding: received.prefix(max(length, 0)), as: UTF8.self) == (try Fixtures.text("canonical.jsonl")))
    }

    @Test("a link the kernel resolves to no path (/dev/stdout on a pipe: /proc/self/fd/N) is written through")
    func aDescriptorLinkToAPipeIsWrittenThrough() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let link = "/proc/self/fd/\(ends[1])"
        #expect(realpath(link, nil) == nil, "the pipe's link now resolves to a path; this test no longer covers the case")
        #expect(try DonationExporter(store: try filled()).export(toPath: link) == 7)
        var received = [UInt8](repeating: 0, count: 1 << 16)
        let length = read(ends[0], &received, received.count)
        #expect(String(decoding: received.prefix(max(length, 0)), as: UTF8.self) == (try Fixtures.text("canonical.jsonl")))
    }

    @Test func aLinkToACharacterDeviceWritesThroughIt() throws {
        let link = directory.file("null")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/null")
        #expect(try DonationExporter(store: try filled()).export(toPath: link) == 7)
        #expect(fileType(link) == S_IFLNK)
        #expect(fileType("/dev/null") == S_IFCHR)
    }

    @Test func theStoreAndItsFilesAndDirectoriesAreRefused() throws {
        let path = directory.file("store.sqlite")
        let store = try SQLiteDonationStore(path: path)
        _ = try DonationImporter(store: store).importJSONLines(path: try Fixtures.path("canonical.jsonl"))
        let protected = [path, path + "-wal", path + "-shm", path + "-journal"]
        let aliases = [path, path + "-wal", directory.path + "/./store.sqlite-shm", directory.path + "/../" + URL(fileURLWithPath: directory.path).lastPathComponent + "/store.sqlite"]
        for output in aliases {
            let error = storeError { try DonationExporter(store: store).export(toPath: output, protectedPaths: protected) }
            #expect(error?.code == .invalidRequest, "\(output)")
            #expect(error?.message.contains("refusing to export to \(output)") == true)
        }
        let link = directory.file("store-link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        #expect(storeError { try DonationExporter(store: store).export(toPath: link, protectedPaths: protected) }?.code == .invalidRequest)
        #expect(storeError { try DonationExporter(store: store).export(toPath: directory.path) }?.code == .invalidRequest)
        #expect(try SQLiteDonationStore(path: path).all().count == 7)
    }
}
