import Foundation
import GRDB
import Hummingbird
import Testing
import ProactiveCore
import ProactiveService
@testable import ProactiveStore

/// The third hardening round (issue 42): a full disk said as such, readiness, names checked on every path,
/// connections that cannot pin the server.
@Suite("Service: hardening")
struct ServiceHardeningTests {
    /// Limits the service's own write connection to `extra` pages more than the file has (`PRAGMA
    /// max_page_count`: SQLite then answers a write that would grow the file past it SQLITE_FULL, as a
    /// full disk does), or lifts the limit (`extra` nil).
    static func limitPages(_ fixture: ServiceFixture, extra: Int?) throws {
        try fixture.database.writer.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(extra.map { pages + $0 } ?? 1_073_741_823)")
        }
    }

    @Test("a full disk is a 507 with Retry-After saying the disk is full; nothing of the write is stored; it succeeds once space is back")
    func diskFull() async throws {
        let fixture = try ServiceFixture()
        let lines = (1...3_000).map { day in
            donationLine(item: "item-\(day)-" + String(repeating: "x", count: 200), date: "2026-11-20T07:15:00-08:00", identifier: "order-\(day)")
        }.joined(separator: "\n")
        try Self.limitPages(fixture, extra: 4)
        try await fixture.test { client async throws in
            let headers: HTTPFields = [.authorization: "Bearer \(fixture.owner)", .contentType: "application/x-ndjson"]
            let retryAfter = try await client.execute(uri: "/v1/donations", method: .post, headers: headers, body: ByteBuffer(string: lines)) {
                $0.headers[.retryAfter]
            }
            #expect(retryAfter == String(APIError.diskFullRetryAfter))
            let full = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: lines, contentType: "application/x-ndjson")
            #expect(full.status.code == 507, "\(full.text)")
            #expect(full.json?.string("error", "code") == "disk_full", "\(full.text)")
            #expect(full.json?.string("error", "message")?.contains("the disk is full") == true, "\(full.text)")
            #expect(try fixture.storedCount() == 0)
            let one = try await client.send(.post, "/v1/donations", credential: fixture.owner,
                                            body: donationLine(item: String(repeating: "y", count: 40_000)))
            #expect(one.status.code == 507, "\(one.text)")

            try Self.limitPages(fixture, extra: nil)
            let stored = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: lines, contentType: "application/x-ndjson")
            #expect(stored.status == .ok, "\(stored.text)")
            #expect(stored.json?.int("stored") == 3_000)
        }
    }

    @Test("GET /readyz asks the store: 200 ready; /healthz stays the liveness check; neither needs a credential")
    func ready() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            let ready = try await client.send(.get, "/readyz", credential: nil)
            #expect(ready.status == .ok, "\(ready.text)")
            #expect(ready.json?.string("status") == "ready")
            #expect(try await client.send(.get, "/healthz", credential: nil).json?.string("status") == "ok")
        }
    }
}
