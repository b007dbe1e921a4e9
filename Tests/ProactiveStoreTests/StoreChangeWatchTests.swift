import Foundation
import ProactiveCore
import ProactiveStore
import Testing

/// The SQLite file's `StoreChangeWatch`: what a long-running holder looks at before each answer.
@Suite("Store change watch")
struct StoreChangeWatchTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    static func donation(_ user: String, minute: Int) -> Donation {
        Donation(user: user, app: "com.example.coffee", intent: "OrderCoffeeIntent", date: Date(timeIntervalSince1970: 1_795_000_000 + Double(minute) * 60))
    }

    @Test("the donation mark grows with each donation stored by any connection; donors names the users above a mark")
    func donationMarkAndDonors() throws {
        let path = directory.file("watch.sqlite")
        let store = SQLiteDonationStore(database: try ProactiveDatabase(path: path))
        let watch = try #require(StoreErasureWatch(path: path))
        #expect(watch.donationMark() == 0)
        try store.append([Self.donation("a", minute: 0), Self.donation("b", minute: 1)], duplicates: .fail)
        let first = try #require(watch.donationMark())
        #expect(first == 2)
        #expect(watch.marks().donations == first && watch.marks().erasures == 0)
        // Another connection (another process) stores for c and a.
        let other = SQLiteDonationStore(database: try ProactiveDatabase(path: path, mode: .mustExist))
        try other.append([Self.donation("c", minute: 2), Self.donation("a", minute: 3)], duplicates: .fail)
        let second = try #require(watch.donationMark())
        #expect(second == 4)
        #expect(watch.donors(after: first, through: second) == ["c", "a"])
        #expect(watch.donors(after: 0, through: first) == ["a", "b"])
        #expect(watch.donors(after: second, through: second) == [])
        // Deleting does not lower it: an id is never given again.
        _ = try other.delete(.matching(DonationFilter(user: "a")))
        #expect(watch.donationMark() == second)
    }
}
