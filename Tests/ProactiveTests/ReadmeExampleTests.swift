import Foundation
import Proactive
import Testing

// README.md's library example is ReadmeExample.swift, the whole file word for word (a test
// compares them); this target depends on the `Proactive` module alone, so the example
// compiles with the one import it shows, and another test runs it.

@Suite("README library example")
struct ReadmeExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `body` with the path of a store file in a new folder, removed afterwards.
    static func withStore(_ body: (String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(folder.appendingPathComponent("me.sqlite").path)
    }

    @Test func runsAsPrinted() throws {
        try Self.withStore { path in
            let result = try morningRoutine(store: path)
            // Two minutes to the coffee: the latte leads and is suggested (the weather was checked at 07:06).
            #expect(result.top == "Order a latte")
            #expect(result.suggestions.contains("Order a latte"))
            #expect(result.stackTop == "order (latte)")
            // The extra donation was learned without a refit.
            let live = try Engine(path: path).liveModel(user: "me")
            #expect(!live.refitted && live.key.donationCount == 29)
        }
    }

    /// Run twice on one store, as a newcomer runs an example again: the same answers, no error, and
    /// each donation stored once.
    @Test func runsTwiceOnOneStore() throws {
        try Self.withStore { path in
            let first = try morningRoutine(store: path)
            let second = try morningRoutine(store: path)
            #expect(first.top == second.top && first.suggestions == second.suggestions && first.stackTop == second.stackTop)
            #expect(second.top == "Order a latte")
            #expect(try Engine(path: path).statistics().rows == 29)
        }
    }

    /// A donation already stored is an error value the caller can catch (nothing stored), or, with
    /// `duplicates: .skip`, ignored with nil; never a trap.
    @Test func aRepeatedDonationIsACatchableErrorOrSkipped() throws {
        let engine = Engine(database: try ProactiveDatabase.inMemory())
        let donation = Donation(user: "me", app: "com.example.coffee", intent: "OrderCoffeeIntent",
                                parameters: ["item": .string("latte")], date: Date(timeIntervalSince1970: 1_795_564_800), utcOffset: 0)
        try engine.donate(donation)
        #expect { try engine.donate(donation) } throws: { error in (error as? StoreError)?.code == .duplicateDonation }
        #expect(try engine.donate(donation, duplicates: .skip) == nil)
        #expect(try engine.statistics().rows == 1)
    }

    @Test func theReadmeShowsThisFile() throws {
        let file = try String(contentsOf: Self.root.appendingPathComponent("Tests/ProactiveTests/ReadmeExample.swift"), encoding: .utf8)
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let shown = try #require(Self.libraryExample(in: readme), "README.md has no <!-- library-example --> swift block")
        #expect(shown == file, "README.md's library example differs from Tests/ProactiveTests/ReadmeExample.swift")
    }

    /// The comparison is exact: one changed character, a line more or less, is a difference.
    @Test func aChangedExampleDiffers() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let shown = try #require(Self.libraryExample(in: readme))
        let edited = readme.replacingOccurrences(of: "k: 2)", with: "k: 3)")
        #expect(Self.libraryExample(in: edited) != shown)
        let indented = readme.replacingOccurrences(of: "    let engine = try Engine(path: path)\n", with: "    let engine = try Engine(path: path)\n\n")
        #expect(Self.libraryExample(in: indented) != shown)
    }

    /// The text of the ```swift block that follows `<!-- library-example -->`, with its final newline.
    static func libraryExample(in readme: String) -> String? {
        let opening = "<!-- library-example -->\n```swift\n"
        guard let start = readme.range(of: opening),
              let end = readme.range(of: "\n```\n", range: start.upperBound ..< readme.endIndex) else { return nil }
        return String(readme[start.upperBound ..< end.lowerBound]) + "\n"
    }
}
