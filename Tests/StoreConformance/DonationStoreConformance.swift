import Foundation
import ProactiveCore
import ProactiveStore
import Testing

// MARK: - The contract every donation store meets

/// The `DonationStore` contract as checks on an empty store, run by each implementation's tests
/// (ProactiveStoreTests: SQLite file, SQLite in memory, in memory; ProactivePostgresTests:
/// PostgreSQL): the same validation, order, counts and errors. Each check expects `store` empty
/// and records its failures with `#expect`.
///
/// ```swift
/// @Test(arguments: DonationStoreConformance.checks)
/// func conformance(check: DonationStoreConformance.Check) throws {
///     try check.run(makeEmptyStore())
/// }
/// ```
public enum DonationStoreConformance {
    /// One check, named for the test listing.
    public typealias Check = ConformanceCheck<any DonationStore>

    /// Every check, in the order they are written below.
    public static let checks: [Check] = [
        Check(name: "appendedDonationsReadBackExactly", run: appendedDonationsReadBackExactly),
        Check(name: "historyIsChronologicalWithTiesInInsertionOrder", run: historyIsChronologicalWithTiesInInsertionOrder),
        Check(name: "dateSpansAreHalfOpen", run: dateSpansAreHalfOpen),
        Check(name: "duplicateIdentifiersFailAtomicallyOrAreSkipped", run: duplicateIdentifiersFailAtomicallyOrAreSkipped),
        Check(name: "donationsWithoutIdentifiersAreRecognisedByTheirContent", run: donationsWithoutIdentifiersAreRecognisedByTheirContent),
        Check(name: "withinABatchTheFirstInFileOrderWinsAndTiesKeepTheirOrder", run: withinABatchTheFirstInFileOrderWinsAndTiesKeepTheirOrder),
        Check(name: "invalidDonationsAreRejectedWithTheField", run: invalidDonationsAreRejectedWithTheField),
        Check(name: "oneTransactionCommitsOnReturnAndRollsBackOnThrow", run: oneTransactionCommitsOnReturnAndRollsBackOnThrow),
        Check(name: "pagesWalkTheExportOrderWithoutGapsOrRepeats", run: pagesWalkTheExportOrderWithoutGapsOrRepeats),
        Check(name: "statisticsCountRowsAndWeightedDonations", run: statisticsCountRowsAndWeightedDonations),
        Check(name: "timeZonesAreConfiguredPerUser", run: timeZonesAreConfiguredPerUser),
        Check(name: "outcomesPerDonation", run: outcomesPerDonation),
        Check(name: "batchesMixingNewAndDuplicateDonationsAnswerPerLine", run: batchesMixingNewAndDuplicateDonationsAnswerPerLine),
    ]

    public static func appendedDonationsReadBackExactly(_ store: any DonationStore) throws {
        let rich = sample(minutes: 0.5, identifier: "w-1", group: "cupertino", count: 3,
                          parameters: ["location": .entity(id: "cupertino", display: "Cupertino"), "days": .int(3),
                                       "ratio": .double(0.25), "metric": .bool(true), "note": .string("a \"b\"\n é")],
                          context: ["focus": "work", "place": "home"])
        let plain = sample(app: "com.example.notes", intent: "open", minutes: 1, utcOffset: nil)
        let untagged = sample(minutes: 2, parameters: ["location": .entity(id: "paris", display: nil)], utcOffset: 3600)
        let result = try store.append([rich, plain, untagged], duplicates: .fail)
        #expect(result == AppendResult(inserted: 3, duplicates: 0))
        #expect(try store.donations(forUser: "u1", in: .all) == [rich, plain, untagged])
    }

    public static func historyIsChronologicalWithTiesInInsertionOrder(_ store: any DonationStore) throws {
        let late = sample(minutes: 30, identifier: "late")
        let tieA = sample(minutes: 10, identifier: "tie-a")
        let tieB = sample(app: "com.example.coffee", minutes: 10, identifier: "tie-b")
        let other = sample(user: "u2", minutes: 5, identifier: "other")
        try store.append([late, tieA], duplicates: .fail)
        try store.append([other, tieB], duplicates: .fail)
        #expect(try store.donations(forUser: "u1", in: .all).map(\.identifier) == ["tie-a", "tie-b", "late"])
        #expect(try store.donations(forUser: "u2", in: .all) == [other])
        #expect(try store.donations(forUser: "nobody", in: .all).isEmpty)
    }

    public static func dateSpansAreHalfOpen(_ store: any DonationStore) throws {
        try store.append((0..<5).map { sample(minutes: Double($0), identifier: "m\($0)") }, duplicates: .fail)
        let minute = { (m: Double) in Date(timeIntervalSince1970: sampleDay + m * 60) }
        #expect(try store.donations(forUser: "u1", in: DateSpan(start: minute(1), end: minute(3))).map(\.identifier) == ["m1", "m2"])
        #expect(try store.donations(forUser: "u1", in: DateSpan(end: minute(2))).map(\.identifier) == ["m0", "m1"])
        #expect(try store.donations(forUser: "u1", in: DateSpan(start: minute(2))).map(\.identifier) == ["m2", "m3", "m4"])
        // Bounds far outside the supported years clamp instead of trapping.
        #expect(try store.donations(forUser: "u1", in: DateSpan(start: .distantPast, end: .distantFuture)).count == 5)
    }

    public static func duplicateIdentifiersFailAtomicallyOrAreSkipped(_ store: any DonationStore) throws {
        try store.append([sample(identifier: "a1")], duplicates: .fail)
        let error = storeError { try store.append([sample(minutes: 1, identifier: "fresh"), sample(minutes: 2, identifier: "a1")], duplicates: .fail) }
        #expect(error?.code == .duplicateIdentifier)
        #expect(error?.message.contains("a1") == true)
        #expect(try store.identifiers() == ["a1"], "a failed batch stores nothing")

        let skipped = try store.append([sample(minutes: 1, identifier: "fresh"), sample(minutes: 2, identifier: "a1"),
                                        sample(minutes: 3, identifier: "fresh"), sample(minutes: 4)], duplicates: .skip)
        #expect(skipped == AppendResult(inserted: 2, duplicates: 2))
        // The same identifier in another app is a different donation.
        let otherApp = try store.append([sample(app: "com.example.other", identifier: "a1"), sample(minutes: 5)], duplicates: .fail)
        #expect(otherApp == AppendResult(inserted: 2, duplicates: 0))
        #expect(try store.count() == 5)
    }

    /// Without an identifier, a donation is the same donation when every field is equal.
    public static func donationsWithoutIdentifiersAreRecognisedByTheirContent(_ store: any DonationStore) throws {
        let stored = sample(minutes: 4, parameters: ["size": .string("large")], context: ["focus": "work"])
        try store.append([stored], duplicates: .fail)
        let error = storeError { try store.append([sample(minutes: 9), stored], duplicates: .fail) }
        #expect(error?.code == .duplicateDonation)
        #expect(error?.message.contains("user u1 already has this donation") == true)
        #expect(try store.count() == 1, "a failed batch stores nothing")
        // One field different is another donation: each field takes part in the key.
        var variants: [Donation] = []
        func variant(_ change: (inout Donation) -> Void) { var copy = stored; change(&copy); variants.append(copy) }
        variant { $0.user = "u2" }
        variant { $0.app = "com.example.other" }
        variant { $0.intent = "OtherIntent" }
        variant { $0.parameters["size"] = .string("small") }
        variant { $0.date = $0.date.addingTimeInterval(0.001) }
        variant { $0.utcOffset = 3600 }
        variant { $0.utcOffset = nil }  // Unix seconds count as +00:00, not as the stored -08:00
        variant { $0.identifier = "now-with-an-id" }
        variant { $0.group = "g" }
        variant { $0.context["focus"] = "personal" }
        variant { $0.count = 2 }
        #expect(try store.append(variants + [stored], duplicates: .skip) == AppendResult(inserted: variants.count, duplicates: 1))
        // Within one batch the first copy is stored and the second counted.
        let twice = sample(minutes: 30)
        #expect(try store.append([twice, twice], duplicates: .skip) == AppendResult(inserted: 1, duplicates: 1))
        // Unix seconds (no offset) and `Z` are one clock: what `export` writes for the former is the latter.
        #expect(try store.append([sample(minutes: 50, utcOffset: nil), sample(minutes: 50, utcOffset: 0)], duplicates: .skip)
                == AppendResult(inserted: 1, duplicates: 1))
        #expect(try store.count() == variants.count + 3)
        // Deleting frees the key (here: u1's donations at that millisecond, the original and 9 variants).
        let instant = DonationFilter(user: "u1", dates: DateSpan(start: stored.date, end: stored.date.addingTimeInterval(0.001)))
        #expect(try store.delete(.matching(instant)) == 10)
        #expect(try store.append([stored], duplicates: .fail) == AppendResult(inserted: 1, duplicates: 0))
    }

    /// The SQLite store inserts a batch grouped by user and date; what it keeps must not depend on that.
    public static func withinABatchTheFirstInFileOrderWinsAndTiesKeepTheirOrder(_ store: any DonationStore) throws {
        let first = sample(user: "u2", minutes: 9, identifier: "dup", parameters: ["note": .string("first")])
        let batch = [
            first,
            sample(minutes: 5, identifier: "t1"),
            sample(user: "u2", minutes: 1, identifier: "other"),
            sample(minutes: 5, identifier: "t2"),
            // Grouped by user and sorted by date this one would come first; in file order it is the second "dup".
            sample(user: "u2", minutes: 0, identifier: "dup", parameters: ["note": .string("second")]),
            sample(minutes: 2),
        ]
        #expect(try store.append(batch, duplicates: .skip) == AppendResult(inserted: 5, duplicates: 1))
        #expect(try store.donations(forUser: "u2", in: .all) == [batch[2], first])
        #expect(try store.donations(forUser: "u1", in: .all).map(\.identifier) == [nil, "t1", "t2"])
        // Under `.fail` the later duplicate fails the batch, whatever the order of insertion.
        let error = storeError { try store.append([sample(user: "u3", minutes: 8, identifier: "again"), sample(user: "u0", minutes: 0, identifier: "again")], duplicates: .fail) }
        #expect(error?.code == .duplicateIdentifier)
        #expect(try store.count() == 5)
    }

    public static func invalidDonationsAreRejectedWithTheField(_ store: any DonationStore) throws {
        let cases: [(Donation, String)] = [
            (sample(app: ""), "app"),
            (sample(user: ""), "user"),
            (sample(intent: ""), "intent"),
            (sample(identifier: ""), "identifier"),
            (sample(group: ""), "group"),
            (sample(count: 0), "count"),
            (sample(parameters: ["x": .double(.nan)]), "parameters.x"),
            (sample(parameters: ["": .int(1)]), "parameters"),
            (sample(utcOffset: 19 * 3600), "utcOffset"),
            (Donation(app: "a", intent: "i", date: Date(timeIntervalSince1970: -86_400)), "date"),
            (Donation(app: "a", intent: "i", date: .distantFuture), "date"),
        ]
        for (donation, field) in cases {
            let error = storeError { try store.append([sample(identifier: "good"), donation], duplicates: .fail) }
            #expect(error?.code == .invalidDonation)
            #expect(error?.message.contains("\(field): ") == true, "\(error?.message ?? "no error") should name \(field)")
        }
        #expect(try store.count() == 0)
    }

    public static func oneTransactionCommitsOnReturnAndRollsBackOnThrow(_ store: any DonationStore) throws {
        struct Stop: Error, Equatable {}
        try store.append(sample(identifier: "before"))
        let stored = try store.inOneTransaction { appender in
            try appender.append([sample(minutes: 1, identifier: "t1")], duplicates: .fail).inserted
                + appender.append([sample(minutes: 2, identifier: "t2"), sample(minutes: 3, identifier: "before")], duplicates: .skip).inserted
        }
        #expect(stored == 2)
        #expect(throws: Stop()) {
            try store.inOneTransaction { appender in
                _ = try appender.append([sample(minutes: 4, identifier: "lost")], duplicates: .fail)
                throw Stop()
            }
        }
        // A failing batch inside the transaction undoes only that batch.
        try store.inOneTransaction { appender in
            _ = try appender.append([sample(minutes: 5, identifier: "kept")], duplicates: .fail)
            let error = storeError { _ = try appender.append([sample(minutes: 6, identifier: "x"), sample(minutes: 7, identifier: "t1")], duplicates: .fail) }
            #expect(error?.code == .duplicateIdentifier)
        }
        #expect(try store.identifiers() == ["before", "t1", "t2", "kept"])
    }

    public static func pagesWalkTheExportOrderWithoutGapsOrRepeats(_ store: any DonationStore) throws {
        var donations: [Donation] = []
        for index in 0..<23 {
            donations.append(sample(user: ["b", "a", "c"][index % 3], minutes: Double(index % 5), identifier: "d\(index)"))
        }
        try store.append(donations, duplicates: .fail)
        let expected = donations.enumerated().sorted {
            ($0.element.user, $0.element.date, $0.offset) < ($1.element.user, $1.element.date, $1.offset)
        }.map(\.element)
        for pageSize in [1, 4, 23, 100] {
            #expect(try store.all(pageSize: pageSize) == expected)
        }
        // Deleting rows already visited does not disturb the walk.
        let first = try store.page(matching: .everything, after: nil, limit: 10)
        _ = try store.delete(.identifiers(first.donations.compactMap(\.identifier), app: "com.example.weather"))
        let rest = try store.page(matching: .everything, after: first.next, limit: 100)
        #expect(rest.donations == Array(expected.dropFirst(10)))
        #expect(rest.next == nil)
        #expect(storeError { _ = try store.page(matching: .everything, after: nil, limit: 0) }?.code == .invalidRequest)
    }

    public static func statisticsCountRowsAndWeightedDonations(_ store: any DonationStore) throws {
        try store.append([
            sample(user: "u1", app: "w", intent: "Check", minutes: 10, count: 3),
            sample(user: "u1", app: "w", intent: "Check", minutes: 20),
            sample(user: "u2", app: "c", intent: "Order", minutes: 5),
            sample(user: "u2", app: "w", intent: "Order", minutes: 40, count: 2),
        ], duplicates: .fail)
        let stats = try store.statistics(matching: .everything)
        #expect(stats.rows == 4)
        #expect(stats.donations == 7)
        #expect(stats.firstDate == Date(timeIntervalSince1970: sampleDay + 300))
        #expect(stats.lastDate == Date(timeIntervalSince1970: sampleDay + 2400))
        typealias T = DonationStatistics.Tally
        #expect(stats.byApp == [T(name: "w", rows: 3, donations: 6), T(name: "c", rows: 1, donations: 1)])
        #expect(stats.byIntent == [T(app: "w", name: "Check", rows: 2, donations: 4), T(app: "w", name: "Order", rows: 1, donations: 2),
                                   T(app: "c", name: "Order", rows: 1, donations: 1)])
        #expect(stats.byUser == [T(name: "u1", rows: 2, donations: 4), T(name: "u2", rows: 2, donations: 3)])
        let filtered = try store.statistics(matching: DonationFilter(user: "u2", app: "w"))
        #expect(filtered.rows == 1 && filtered.donations == 2)
        let empty = try store.statistics(matching: DonationFilter(user: "nobody"))
        #expect(empty == DonationStatistics())
        #expect(try store.users() == ["u1", "u2"])
    }

    public static func timeZonesAreConfiguredPerUser(_ store: any DonationStore) throws {
        #expect(try store.timeZone(forUser: "u1") == nil)
        try store.setTimeZone("America/New_York", forUser: "u1")
        try store.setTimeZone("Europe/Paris", forUser: "u2")
        try store.setTimeZone("Asia/Tokyo", forUser: "u1")
        #expect(try store.timeZone(forUser: "u1") == "Asia/Tokyo")
        #expect(try store.configuredTimeZone(forUser: "u2") == TimeZone(identifier: "Europe/Paris"))
        try store.setTimeZone(nil, forUser: "u1")
        #expect(try store.timeZone(forUser: "u1") == nil)
        #expect(storeError { try store.setTimeZone("Mars/Olympus", forUser: "u1") }?.code == .invalidRequest)
        #expect(storeError { try store.setTimeZone("UTC", forUser: "") }?.code == .invalidRequest)
    }

    /// Appending each donation of a batch: stored, a duplicate of a stored identifier, a duplicate within the
    /// batch, the same donation again without an identifier: every store answers alike and keeps the same rows.
    public static func outcomesPerDonation(_ store: any DonationStore) throws {
        try store.append([sample(minutes: 0, identifier: "a")], duplicates: .fail)
        let batch = [sample(minutes: 1, identifier: "a"), sample(minutes: 2, identifier: "b"), sample(minutes: 3, identifier: "b"),
                     sample(minutes: 4), sample(minutes: 4), sample(minutes: 5, identifier: "c")]
        let outcomes = try store.inOneTransaction { appender in try appender.appendEach(batch) }
        #expect(outcomes.map { (try? $0.get()) ?? nil } == [false, true, false, true, false, true])
        #expect(try store.identifiers().sorted() == ["a", "b", "c"])
        #expect(try store.all().count == 4)
    }

    /// Several batches committed at once (`appendEach(batches:)`, the service's group commit), mixing new
    /// donations, a stored identifier, the same donation as one stored, duplicates within a batch and across
    /// batches, and one the encoding refuses: every store answers each line alike, keeps the first in line
    /// order, and stores ties at one instant in line order.
    public static func batchesMixingNewAndDuplicateDonationsAnswerPerLine(_ store: any DonationStore) throws {
        let known = sample(minutes: 10)  // no identifier: recognised by its content
        try store.append([sample(minutes: 0, identifier: "a"), known], duplicates: .fail)
        let first = [
            sample(minutes: 1, identifier: "n1"),
            sample(minutes: 2, identifier: "a"),  // a stored identifier
            known,  // the same donation as one stored
            sample(minutes: 3, identifier: "n1"),  // an identifier earlier in the batch
            sample(minutes: 6, identifier: "t2"),
            sample(minutes: 4),
            sample(minutes: 4),  // the same donation earlier in the batch
            sample(intent: "", minutes: 7),  // refused by the encoding
            sample(minutes: 6, identifier: "t1"),  // a tie with t2 at one instant: after it, in line order
            sample(user: "u2", minutes: 10, identifier: "n2"),
        ]
        let second = [
            sample(minutes: 1, identifier: "n1"),  // the same donation as one of the first batch
            sample(user: "u2", minutes: 11, identifier: "n2"),  // an identifier of the first batch
            sample(minutes: 5, identifier: "n3"),
            known,
        ]
        let outcomes = try store.appendEach(batches: [PreparedDonations(first), PreparedDonations(second)])
        let answers = outcomes.map { batch in
            (try? batch.get())?.map { line in
                switch line {
                case .success(true): "stored"
                case .success(false): "duplicate"
                case .failure(let error): "\(error.code)"
                }
            }
        }
        #expect(answers == [
            ["stored", "duplicate", "duplicate", "duplicate", "stored", "stored", "duplicate", "invalidDonation", "stored", "stored"],
            ["duplicate", "duplicate", "stored", "duplicate"],
        ])
        #expect(try store.donations(forUser: "u1", in: .all).map(\.identifier) == ["a", "n1", nil, "n3", "t2", "t1", nil])
        #expect(try store.donations(forUser: "u2", in: .all) == [first[9]])
        #expect(try store.count() == 8)
    }
}
