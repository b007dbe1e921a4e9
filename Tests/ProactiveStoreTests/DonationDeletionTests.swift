import Foundation
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

/// Deletion as apps do it: always scoped to the acting app for identifiers and groups.
@Suite("Donation deletion")
struct DonationDeletionTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    /// Two apps that happen to use the same identifiers and groups, two users.
    func seeded(_ kind: StoreKind) throws -> any DonationStore {
        let store = try kind.makeStore(in: directory)
        try store.append([
            sample(user: "u1", app: "A", minutes: 1, identifier: "x1", group: "san-diego"),
            sample(user: "u1", app: "A", minutes: 2, identifier: "x2", group: "san-diego"),
            sample(user: "u1", app: "A", minutes: 3, identifier: "x3", group: "cupertino"),
            sample(user: "u1", app: "B", minutes: 4, identifier: "x1", group: "san-diego"),
            sample(user: "u2", app: "B", minutes: 5, identifier: "x2", group: "san-diego"),
            sample(user: "u2", app: "A", minutes: 6, group: "san-diego"),
        ], duplicates: .fail)
        return store
    }

    func remaining(_ store: any DonationStore) throws -> [String] {
        try store.all().map { "\($0.app):\($0.identifier ?? "-")@\(Int(($0.date.timeIntervalSince1970 - sampleDay) / 60))" }.sorted()
    }

    @Test(arguments: StoreKind.allCases)
    func groupDeletionLeavesOtherAppsSameGroupUntouched(kind: StoreKind) throws {
        let store = try seeded(kind)
        #expect(try store.delete(.group("san-diego", app: "A")) == 3)
        #expect(try remaining(store) == ["A:x3@3", "B:x1@4", "B:x2@5"])
        #expect(try store.delete(.group("san-diego", app: "A")) == 0)
        #expect(try store.delete(.group("san-diego", app: "B")) == 2)
        #expect(try remaining(store) == ["A:x3@3"])
    }

    @Test(arguments: StoreKind.allCases)
    func identifierDeletionLeavesOtherAppsSameIdentifiersUntouched(kind: StoreKind) throws {
        let store = try seeded(kind)
        #expect(try store.delete(.identifiers(["x1", "x2", "unknown"], app: "A")) == 2)
        #expect(try remaining(store) == ["A:-@6", "A:x3@3", "B:x1@4", "B:x2@5"])
        #expect(try store.delete(.identifiers([], app: "B")) == 0)
        #expect(try store.delete(.identifiers(["x2"], app: "B")) == 1)
        #expect(try remaining(store) == ["A:-@6", "A:x3@3", "B:x1@4"])
        // A deleted identifier can be donated again.
        try store.append(sample(user: "u1", app: "A", minutes: 9, identifier: "x1"))
        #expect(try store.count() == 4)
    }

    @Test(arguments: StoreKind.allCases)
    func deletionByAppUserAndDateSpan(kind: StoreKind) throws {
        var store = try seeded(kind)
        #expect(try store.delete(.matching(DonationFilter(app: "B"))) == 2)
        #expect(try remaining(store) == ["A:-@6", "A:x1@1", "A:x2@2", "A:x3@3"])

        store = try seeded(kind)
        #expect(try store.delete(.matching(DonationFilter(user: "u2"))) == 2)
        #expect(try store.users() == ["u1"])

        store = try seeded(kind)
        let minute = { (m: Double) in Date(timeIntervalSince1970: sampleDay + m * 60) }
        #expect(try store.delete(.matching(DonationFilter(dates: DateSpan(start: minute(2), end: minute(5))))) == 3)
        #expect(try remaining(store) == ["A:-@6", "A:x1@1", "B:x2@5"])
        #expect(try store.delete(.matching(DonationFilter(user: "u2", app: "A", dates: DateSpan(end: minute(7))))) == 1)
        #expect(try remaining(store) == ["A:x1@1", "B:x2@5"])
        #expect(try store.delete(.matching(.everything)) == 2)
        #expect(try store.count() == 0)
    }
}
