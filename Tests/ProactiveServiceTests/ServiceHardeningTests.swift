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

    @Test("one identifier rule on every path segment, query value and body field: '.', '..', encoded separators and U+0000 are a 400 naming the field")
    func namesCheckedEverywhere() async throws {
        let fixture = try ServiceFixture()
        let refused: [(method: HTTPRequest.Method, uri: String, body: String?, field: String)] = [
            (.put, "/v1/apps/com.example.coffee%2F..%2Fcom.example.tea/shortcuts?user=me", #"{"shortcuts": []}"#, "app"),
            (.put, "/v1/apps/%2E%2E/shortcuts?user=me", #"{"shortcuts": []}"#, "app"),
            (.get, "/v1/apps/%2E/focus-filter", nil, "app"),
            (.put, "/v1/apps/com.example.coffee%5C..%5Ccom.example.tea/focus-filter",
             #"{"title": "T", "parameters": [{"name": "units", "type": "string"}]}"#, "app"),
            (.get, "/v1/stats?app=..", nil, "app"),
            (.get, "/v1/stats?user=a%00b", nil, "user"),
            (.delete, "/v1/donations?app=com.example.coffee%252F..", nil, "app"),
            (.delete, "/v1/users?user=a%00b", nil, "user"),
            (.put, "/v1/timelines?user=%00", "[]", "user"),
            (.post, "/v1/predict", #"{"user": "a\u0000b"}"#, "user"),
            (.post, "/v1/notifications", #"{"app": ".."}"#, "app"),
            (.post, "/v1/donations", #"{"app": "com.example.coffee", "intent": "OrderCoffeeIntent", "parameters": {"si\u0000ze": "large"}, "date": "2026-11-20T07:00:00Z"}"#, "parameters"),
            (.post, "/v1/donations", #"{"app": "com.example.coffee", "intent": "OrderCoffeeIntent", "parameters": {"size": "lar\u0000ge"}, "date": "2026-11-20T07:00:00Z"}"#, "parameters.size"),
        ]
        try await fixture.test { client async throws in
            for request in refused {
                let answer = try await client.send(request.method, request.uri, credential: fixture.owner, body: request.body)
                #expect(answer.status == .badRequest, "\(request.method) \(request.uri): \(answer.text)")
                #expect(answer.json?.string("error", "field") == request.field, "\(request.method) \(request.uri): \(answer.text)")
            }
        }
        #expect(try fixture.storedCount() == 0)
        #expect(try SQLiteDeclarationStore(database: fixture.database).shortcutSets(user: "me").isEmpty)
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

/// Connections that cannot pin the server: idle and half-sent ones are closed after the idle timeout,
/// a declared body over the limit is refused at once, and others are answered meanwhile.
@Suite("Service: connection deadlines")
struct ServiceConnectionDeadlineTests {
    @Test("300 idle and 100 half-sent connections: another request is answered meanwhile; all are closed after the idle timeout")
    func idleAndHalfSent() async throws {
        let fixture = try ServiceFixture { $0.idleTimeout = .seconds(2) }
        try await fixture.live { port, client async throws in
            var idle: [RawConnection] = []
            for _ in 0..<300 { idle.append(try RawConnection(port: port)) }
            var halfSent: [RawConnection] = []
            for index in 0..<100 {
                let connection = try RawConnection(port: port)
                try await connection.send("GET /v1/stats HTTP/1.1\r\nHost: localhost\r\nX-Slow-\(index): ")
                halfSent.append(connection)
            }
            let clock = ContinuousClock()
            var answer: (status: HTTPResponse.Status, json: JSONValue?, text: String)?
            let took = try await clock.measure { answer = try await client.send(.get, "/v1/stats", credential: fixture.owner) }
            #expect(answer?.status == .ok)
            // Answered, not pinned. The bound is loose: the whole suite shares this process and 2 cores (14 s was
            // seen there); the figure is dev/slowloris.py's, against a serve process of its own.
            #expect(took < .seconds(30), "\(took)")
            // Past the idle timeout (2 s) every one of them is closed by the server.
            var open = 0
            for connection in idle + halfSent where !(try await connection.readUntilClosed(timeout: .seconds(20)).closed) { open += 1 }
            #expect(open == 0, "\(open) of 400 connections still open")
            #expect(try await client.send(.get, "/readyz", credential: nil).status == .ok)
        }
    }

    @Test("a Content-Length over --max-body with no body sent is a 413 at once, and the connection closes")
    func declaredTooLarge() async throws {
        // An idle timeout far longer than the wait: only the early 413 can end the exchange in time.
        let fixture = try ServiceFixture {
            $0.maxBody = 1_000
            $0.idleTimeout = .seconds(120)
        }
        try await fixture.live { port, _ async throws in
            let connection = try RawConnection(port: port)
            try await connection.send("POST /v1/donations HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(fixture.owner)\r\n"
                                      + "Content-Type: application/json\r\nContent-Length: 5000000\r\n\r\n")
            let clock = ContinuousClock()
            var answer: (text: String, closed: Bool)?
            let took = try await clock.measure { answer = try await connection.readUntilClosed(timeout: .seconds(60)) }
            #expect(answer?.text.hasPrefix("HTTP/1.1 413") == true, "\(answer?.text ?? "")")
            #expect(answer?.text.contains("Content-Length 5000000") == true, "\(answer?.text ?? "")")
            #expect(answer?.closed == true)
            #expect(took < .seconds(60), "\(took)")
        }
    }
}
