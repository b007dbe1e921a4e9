import Foundation
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

/// Issue 16 (items 1-4): what names a donation is stored exactly as it is
/// compared, so nothing becomes unforgettable or reachable by another app.
@Suite("Identifying fields")
struct IdentifyingFieldTests {
    static let composed = "com.caf\u{E9}"  // NFC
    static let decomposed = "com.cafe\u{301}"  // NFD, canonically equivalent

    @Test func canonicallyEquivalentAppsAreDifferentActors() throws {
        #expect(Self.composed == Self.decomposed)  // Swift's == equates them; the check must not
        let access = StoreAccess.app(Self.composed)
        #expect(throws: StoreError.self) { try access.require(app: Self.decomposed, to: "delete") }
        #expect(!access.sees(app: Self.decomposed))
        #expect(access.sees(app: Self.composed))
        #expect(throws: StoreError.self) { _ = try access.scope(DonationFilter(app: Self.decomposed), to: "delete") }
    }

    @Test(arguments: [
        (sample(app: "com.caf\u{E9}"), "app"),
        (sample(app: "com.b/news"), "app"),
        (sample(user: "victim\u{0}x"), "user"),
        (sample(identifier: "pay-1\u{0}"), "identifier"),
        (sample(group: "g\u{1}"), "group"),
        (sample(intent: "I\u{7F}"), "intent"),
    ])
    func bothStoresRefuseWhatCouldReadBackAsSomethingElse(donation: Donation, field: String) throws {
        let sqlite = SQLiteDonationStore(database: try ProactiveDatabase.inMemory())
        let memory = InMemoryDonationStore()
        for store in [sqlite, memory] as [any DonationStore] {
            do {
                _ = try store.append([donation], duplicates: .fail)
                Issue.record("stored \(DonationLineCodec.encode(donation))")
            } catch {
                #expect(error.code == .invalidDonation)
                #expect(error.description.contains(": \(field): "), "\(error)")
            }
            #expect(try store.all().isEmpty)
        }
    }

    /// The codec and the store agree on the date range: a line the codec
    /// accepts is never refused by the store (which aborted whole imports).
    @Test(arguments: ["1969-12-31T16:00:00-08:00", "2200-12-31T23:59:59.999Z", "2026-11-20T07:00:00+18:00"])
    func datesTheCodecAcceptsTheStoreStores(date: String) throws {
        let donation = try DonationLineCodec.decode(#"{"app":"a","intent":"i","date":"\#(date)"}"#)
        let store = SQLiteDonationStore(database: try ProactiveDatabase.inMemory())
        _ = try store.append([donation], duplicates: .fail)
        #expect(try store.all().map(DonationLineCodec.encode) == [DonationLineCodec.encode(donation)])
    }

    /// Issue 16, item 5: the Focus recorded with a donation is the owner's; an app reads its donations without it.
    @Test func anAppReadsItsDonationsWithoutTheOwnersFocus() throws {
        let base = SQLiteDonationStore(database: try ProactiveDatabase.inMemory())
        _ = try base.append([sample(app: "com.a", context: ["focus": "sleep", "place": "home"])], duplicates: .fail)
        let app = AppScopedDonationStore(base, access: .app("com.a"))
        #expect(try app.all().map(\.context) == [["place": "home"]])
        #expect(try app.donations(forUser: "u1", in: .all).map(\.context) == [["place": "home"]])
        let owner = AppScopedDonationStore(base, access: .administrator)
        #expect(try owner.all().map(\.context) == [["focus": "sleep", "place": "home"]])
    }

    /// Issue 16, item 11: a donation from any entry point (donate, the library)
    /// must export as a line that imports; one whose canonical line is over the limit is refused.
    @Test func bothStoresRefuseADonationWhoseLineWouldBeOverTheLimit() throws {
        let huge = sample(parameters: ["a": .string(String(repeating: "x", count: 600_000)), "b": .string(String(repeating: "y", count: 500_000))])
        let fits = sample(identifier: "fits", parameters: ["a": .string(String(repeating: "x", count: 600_000))])
        for store in [SQLiteDonationStore(database: try ProactiveDatabase.inMemory()), InMemoryDonationStore()] as [any DonationStore] {
            let error = storeError { _ = try store.append([huge], duplicates: .fail) }
            #expect(error?.code == .invalidDonation)
            #expect(error?.message.contains("line: the canonical line is ") == true, "\(String(describing: error))")
            _ = try store.append([fits], duplicates: .fail)
            let line = try DonationExporter(store: store).exportedText()
            #expect(try DonationLineCodec.decode(String(line.dropLast())) == fits)
        }
    }
}
