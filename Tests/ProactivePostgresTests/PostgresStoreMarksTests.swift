import Foundation
@testable import ProactivePostgres
import ProactiveStore
import StoreConformance
import Testing

// MARK: - One round trip for a request's looks at the store

/// The credential check, the change watch's marks and its version read together (`PostgresStoreMarks`):
/// one round trip for what a request looks at, never a reading older than the request or than a
/// write through the same backend.
@Suite("PostgreSQL marks read once a request", PostgresTestServer.available)
struct PostgresStoreMarksTests {
    @Test func aRequestsLooksCostOneRoundTrip() throws {
        let database = try TestDatabase()
        let backend = try PostgresBackend(url: database.url)
        let marks = PostgresStoreMarks(url: database.url, writes: backend.database)
        let watch = PostgresChangeWatch(marks)
        let credentials = PostgresCredentialStore(database: backend.database, marks: marks)
        let connection = try marks.database()
        let before = connection.statementsSent
        let version = try StoreFreshness.$since.withValue(.now) {
            let version = try credentials.version()
            #expect(watch.marks() == (erasures: 0, donations: 0))
            #expect(watch.version() != nil)
            return version
        }
        #expect(connection.statementsSent - before == 1)
        #expect(version == (try PostgresCredentialStore(database: backend.database).version()))
        // Outside a request (background work), each look asks the server.
        _ = watch.marks()
        _ = watch.version()
        #expect(connection.statementsSent - before == 3)
    }

    @Test func aReadingIsNeverOlderThanTheRequestOrAWriteOfItsOwn() throws {
        let database = try TestDatabase()
        let backend = try PostgresBackend(url: database.url)
        let marks = PostgresStoreMarks(url: database.url, writes: backend.database)
        let watch = PostgresChangeWatch(marks)
        let other = PostgresDonationStore(database: try database.open())  // another instance, or the CLI
        try StoreFreshness.$since.withValue(.now) {
            #expect(watch.donationMark() == 0)
            // Committed elsewhere after this request's reading: the request keeps its reading.
            try other.append([sample(identifier: "a")], duplicates: .skip)
            #expect(watch.donationMark() == 0)
            // Committed through its own backend: read again.
            try PostgresDonationStore(database: backend.database).append([sample(minutes: 1, identifier: "b")], duplicates: .skip)
            #expect(watch.donationMark() == 2)
        }
        try other.append([sample(minutes: 2, identifier: "c")], duplicates: .skip)
        // A request arriving after another instance's write sees it.
        try StoreFreshness.$since.withValue(.now) { #expect(watch.donationMark() == 3) }
    }
}
