import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine
import ProactiveLab
import ProactiveModels
import ProactiveRuntime
import ProactiveService
import ProactiveStore
import Testing

@Suite("Service: credentials")
struct ServiceCredentialTests {
    @Test("healthz and readyz answer without a credential; everything else needs a known one (401, JSON)")
    func credentialsAreRequired() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            let health = try await client.send(.get, "/healthz", credential: nil)
            #expect(health.status == .ok)
            #expect(health.json?.string("status") == "ok")
            for route in fixture.service.router().routes where !["/healthz", "/readyz"].contains(route.path.description) {
                let (method, path) = (route.method, samplePath(route.path.description))
                let missing = try await client.send(method, path, credential: nil)
                #expect(missing.status == .unauthorized, "\(method) \(path)")
                #expect(missing.json?.string("error", "code") == "unauthorized")
                let unknown = try await client.send(.get, path, credential: "pk_" + String(repeating: "0", count: 64))
                #expect(unknown.status == .unauthorized)
            }
        }
    }

    @Test("the Authorization value: Bearer in any case, spaces around the credential ignored, other schemes refused")
    func authorizationForms() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            func status(_ value: String) async throws -> HTTPResponse.Status {
                try await client.execute(uri: "/v1/stats", method: .get, headers: [.authorization: value]) { $0.status }
            }
            for accepted in ["Bearer \(fixture.owner)", "bearer \(fixture.owner)", "BEARER  \(fixture.owner)\t", "Bearer \(fixture.owner) ",
                             "Bearer \(fixture.coffee)"] {
                #expect(try await status(accepted) == .ok, "\(accepted.prefix(8))")
            }
            let shorter = String(fixture.owner.dropLast())
            for refused in ["Basic \(fixture.owner)", "Bearer", "Bearer \(shorter) ", "Bearer x\(shorter)", "Bearer \(fixture.owner)x",
                            "\(fixture.owner)"] {
                #expect(try await status(refused) == .unauthorized, "\(refused.prefix(8))")
            }
        }
    }

    @Test("a revoked app credential is refused on the next request")
    func revokedCredential() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            #expect(try await client.send(.get, "/v1/stats", credential: fixture.coffee).status == .ok)
            #expect(try fixture.credentials.revoke(app: "com.example.coffee"))
            #expect(try await client.send(.get, "/v1/stats", credential: fixture.coffee).status == .unauthorized)
            #expect(try await client.send(.get, "/v1/stats", credential: fixture.weather).status == .ok)
        }
    }

    @Test("credential files are the owner's alone and hold hashes, not app credentials")
    func credentialFiles() throws {
        let fixture = try ServiceFixture()
        let files = CredentialFiles(storePath: fixture.path)
        for file in [files.ownerPath, files.appsPath] {
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(file)")
        }
        let apps = try String(contentsOfFile: files.appsPath, encoding: .utf8)
        #expect(!apps.contains(fixture.coffee) && !apps.contains(fixture.weather))
        #expect(try fixture.credentials.apps().map(\.app) == ["com.example.coffee", "com.example.weather"])
        #expect(throws: StoreError.self) { try fixture.credentials.add(app: "com.example.coffee") }
        #expect(throws: StoreError.self) { try fixture.credentials.add(app: "not a bundle id") }
        // A second start keeps the owner's credential.
        #expect(try CredentialStore(storePath: fixture.path).ensureOwnerCredential() == (fixture.owner as String?, false))
    }

    @Test("credentials that cannot be read grant nothing: 503 credentials_unavailable, and back once they can")
    func unreadableCredentials() async throws {
        let fixture = try ServiceFixture()
        let apps = CredentialFiles(storePath: fixture.path).appsPath
        let good = try String(contentsOfFile: apps, encoding: .utf8)
        try await fixture.test { client async throws in
            #expect(try await client.send(.get, "/v1/stats", credential: fixture.coffee).status == .ok)
            try "not a credential line\n".write(toFile: apps, atomically: true, encoding: .utf8)
            for credential in [fixture.owner, fixture.coffee] {
                let refused = try await client.send(.get, "/v1/stats", credential: credential)
                #expect(refused.status == .serviceUnavailable)
                #expect(refused.json?.string("error", "code") == "credentials_unavailable")
            }
            try good.write(toFile: apps, atomically: true, encoding: .utf8)
            #expect(try await client.send(.get, "/v1/stats", credential: fixture.coffee).status == .ok)
        }
    }

    @Test("serve on a store file refuses --owner-credential-file, naming the file it keeps the owner's credential in")
    func ownerCredentialFileIsForADatabase() async throws {
        let fixture = try ServiceFixture()
        var settings = ServeSettings(address: .socket(path: fixture.directory.appendingPathComponent("s.sock").path))
        let named = fixture.directory.appendingPathComponent("owner").path
        settings.ownerCredentialFile = named
        await #expect {
            try await ProactiveService.serve(storage: SQLiteBackend(fixture.database), settings: settings, logger: fixture.service.logger)
        } throws: { error in
            (error as? StoreError)?.code == .invalidRequest && (error as? StoreError)?.message.contains(fixture.path + ".owner-credential") == true
        }
        #expect(!FileManager.default.fileExists(atPath: named))
    }
}

@Suite("Service: donations")
struct ServiceDonationTests {
    @Test("one donation is stored and returned; the same identifier again is a 409")
    func singleDonation() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            let line = donationLine(identifier: "order-1")
            let first = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: line)
            #expect(first.status == .created)
            #expect(first.json?.string("identifier") == "order-1")
            let again = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: line)
            #expect(again.status == .conflict)
            #expect(again.json?.string("error", "code") == "duplicate")
        }
        #expect(try fixture.storedCount() == 1)
    }

    @Test("a bad single donation is a 400 naming the field, and nothing is stored")
    func badSingleDonation() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            let badDate = try await client.send(.post, "/v1/donations", credential: fixture.owner,
                                                body: donationLine(date: "yesterday"))
            #expect(badDate.status == .badRequest)
            #expect(badDate.json?.string("error", "field") == "date")
            let wrongType = try await client.send(.post, "/v1/donations", credential: fixture.owner,
                                                  body: #"{"app": 3, "intent": "X", "date": "2026-11-20T07:15:00Z"}"#)
            #expect(wrongType.status == .badRequest)
            #expect(wrongType.json?.string("error", "field") == "app")
            let notJSON = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: "{\"app\":")
            #expect(notJSON.status == .badRequest)
            #expect(notJSON.json?.string("error", "code") == "invalid_json")
        }
        #expect(try fixture.storedCount() == 0)
    }

    @Test("a JSON Lines batch keeps the good lines and says why each other one was refused")
    func batchLines() async throws {
        let fixture = try ServiceFixture()
        let body = [donationLine(identifier: "a"), "{not json", "", donationLine(date: "soon"), donationLine(identifier: "a"),
                    donationLine(item: "mocha", identifier: "b")].joined(separator: "\n")
        try await fixture.test { client async throws in
            let answer = try await client.send(.post, "/v1/donations", credential: fixture.coffee, body: body,
                                               contentType: "application/x-ndjson")
            #expect(answer.status == .ok)
            let json = try #require(answer.json)
            #expect(json.int("stored") == 2)
            #expect(json.int("duplicates") == 1)
            #expect(json.int("rejected") == 2)
            let results = json["results"]?.items ?? []
            #expect(results.map { $0.int("line") } == [1, 2, 4, 5, 6])
            #expect(results.map { $0.string("status") } == ["stored", "rejected", "rejected", "duplicate", "stored"])
            #expect(results[2].string("field") == "date")
        }
        #expect(try fixture.storedCount() == 2)
    }

    @Test("a JSON array batch numbers its items from 1")
    func batchArray() async throws {
        let fixture = try ServiceFixture()
        let body = "[" + [donationLine(), #"{"app": "com.example.coffee"}"#].joined(separator: ",") + "]"
        try await fixture.test { client async throws in
            let answer = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: body)
            #expect(answer.status == .ok)
            let results = answer.json?["results"]?.items ?? []
            #expect(results.map { $0.string("status") } == ["stored", "rejected"])
            #expect(results.last?.int("line") == 2)
            #expect(results.last?.string("field") == "intent")
        }
        #expect(try fixture.storedCount() == 1)
    }

    @Test("an app credential may not donate for another app: 403 and nothing stored, single or batch")
    func donationIsolation() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            let single = try await client.send(.post, "/v1/donations", credential: fixture.weather, body: donationLine())
            #expect(single.status == .forbidden)
            #expect(single.json?.string("error", "code") == "forbidden")
            let batch = [donationLine(app: "com.example.weather", intent: "CheckWeatherIntent"), donationLine()].joined(separator: "\n")
            let mixed = try await client.send(.post, "/v1/donations", credential: fixture.weather, body: batch,
                                              contentType: "application/x-ndjson")
            #expect(mixed.status == .forbidden)
            #expect(try fixture.storedCount() == 0)
            let own = try await client.send(.post, "/v1/donations", credential: fixture.coffee, body: donationLine())
            #expect(own.status == .created)
        }
        #expect(try fixture.storedCount() == 1)
    }

    @Test("an app's single donation is echoed as the app sent it: the owner's Focus the store filled in is not shown")
    func donationEchoHidesTheFocus() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            #expect(try await client.send(.put, "/v1/focus", credential: fixture.owner,
                                          body: #"{"focus": "work", "at": "2026-11-20T06:00:00-08:00"}"#).status == .ok)
            let app = try await client.send(.post, "/v1/donations", credential: fixture.coffee, body: donationLine(identifier: "a"))
            #expect(app.status == .created)
            #expect(app.json?.string("identifier") == "a")
            #expect(app.json?["context"]?["focus"] == nil, "\(app.text)")
            // The store recorded the Focus: the owner's echo shows what was stored.
            let owner = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: donationLine(item: "mocha", identifier: "b"))
            #expect(owner.status == .created)
            #expect(owner.json?.string("context", "focus") == "work")
        }
        let stored = try SQLiteDonationStore(database: fixture.database).donations(forUser: "me", in: DateSpan(start: nil, end: nil))
        #expect(stored.map { $0.context["focus"] } == ["work", "work"])
    }

    @Test("application/json-seq (RFC 7464): each record is RS, a donation and LF; records are numbered from 1")
    func jsonTextSequences() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            let rs = "\u{1E}"
            let body = rs + donationLine(identifier: "s1") + "\n" + rs + #"{"user": "me"}"# + "\n" + rs + donationLine(item: "mocha", identifier: "s2") + "\n"
            let answer = try await client.send(.post, "/v1/donations", credential: fixture.coffee, body: body, contentType: "application/json-seq")
            #expect(answer.status == .ok, "\(answer.text)")
            #expect(answer.json?.int("stored") == 2)
            #expect(answer.json?.int("rejected") == 1)
            let results = answer.json?["results"]?.items ?? []
            #expect(results.map { $0.int("line") } == [1, 2, 3])
            #expect(results.map { $0.string("status") } == ["stored", "rejected", "stored"])
            // Text before the first RS is not a record: refused as record 1, the records after it numbered on.
            let bare = try await client.send(.post, "/v1/donations", credential: fixture.coffee,
                                             body: donationLine(identifier: "s3") + "\n" + rs + donationLine(identifier: "s4") + "\n",
                                             contentType: "application/json-seq")
            let bareResults = bare.json?["results"]?.items ?? []
            #expect(bareResults.map { $0.int("line") } == [1, 2])
            #expect(bareResults.map { $0.string("status") } == ["rejected", "stored"])
            #expect(bareResults.first?.string("reason")?.contains("0x1E") == true, "\(bare.text)")
        }
        #expect(try fixture.storedCount() == 3)
    }

    @Test("a body over --max-body is a 413 with a JSON error")
    func bodyTooLarge() async throws {
        let fixture = try ServiceFixture { $0.maxBody = 1024 }
        let body = (0..<40).map { donationLine(identifier: "x\($0)") }.joined(separator: "\n")
        try await fixture.test { client async throws in
            let answer = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: body,
                                               contentType: "application/x-ndjson")
            #expect(answer.status == .contentTooLarge)
            #expect(answer.json?.string("error", "code") == "too_large")
        }
        #expect(try fixture.storedCount() == 0)
    }

    @Test("deletes by identifier, group, app, user and dates, scoped like --as-app")
    func deletions() async throws {
        let fixture = try ServiceFixture()
        let lines = [donationLine(identifier: "c1"), donationLine(identifier: "c2"),
                     donationLine(app: "com.example.weather", intent: "CheckWeatherIntent", identifier: "c1"),
                     donationLine(date: "2026-01-01T08:00:00Z", user: "other")].joined(separator: "\n")
        try await fixture.test { client async throws in
            let loaded = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: lines, contentType: "application/x-ndjson")
            #expect(loaded.json?.int("stored") == 4)
            let foreign = try await client.send(.delete, "/v1/donations?app=com.example.coffee&identifier=c1", credential: fixture.weather)
            #expect(foreign.status == .forbidden)
            #expect(try fixture.storedCount() == 4)
            let noCriterion = try await client.send(.delete, "/v1/donations", credential: fixture.owner)
            #expect(noCriterion.status == .badRequest)
            // The rules are the Engine's (`Engine.deletion`), named in the query's terms; an empty span is refused.
            #expect(noCriterion.json?.string("error", "message")?.contains("identifier, group, app, user, after, before), or all=true") == true)
            let emptySpan = try await client.send(.delete, "/v1/donations?after=2026-06-02T00:00:00Z&before=2026-06-01T00:00:00Z",
                                                  credential: fixture.owner)
            #expect(emptySpan.status == .badRequest && emptySpan.json?.string("error", "field") == "after")
            let noApp = try await client.send(.delete, "/v1/donations?group=g", credential: fixture.owner)
            #expect(noApp.json?.string("error", "field") == "app")
            let unknown = try await client.send(.delete, "/v1/donations?colour=red", credential: fixture.owner)
            #expect(unknown.json?.string("error", "field") == "colour")
            let own = try await client.send(.delete, "/v1/donations?app=com.example.coffee&identifier=c1", credential: fixture.coffee)
            #expect(own.json?.int("deleted") == 1)
            // "all" for an app credential means all of its own.
            let all = try await client.send(.delete, "/v1/donations?all=true", credential: fixture.weather)
            #expect(all.json?.int("deleted") == 1)
            let byDate = try await client.send(.delete, "/v1/donations?before=2026-06-01T00:00:00Z", credential: fixture.owner)
            #expect(byDate.json?.int("deleted") == 1)
        }
        #expect(try fixture.storedCount() == 1)
    }
}

@Suite("Service: queries")
struct ServiceQueryTests {
    @Test("predict and suggestions answer from the live model, with reasons; app credentials are refused as --as-app is")
    func predictAndSuggest() async throws {
        let fixture = try ServiceFixture()
        let question = #"{"user": "me", "at": "2026-11-20T08:30:00-08:00", "k": 3}"#
        try await fixture.test { client async throws in
            let none = try await client.send(.post, "/v1/predict", credential: fixture.owner, body: question)
            #expect(none.status == .notFound)
            let loaded = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: try ServiceFixture.sampleLines(),
                                               contentType: "application/x-ndjson")
            #expect(loaded.json?.int("stored") == 283)
            let prediction = try await client.send(.post, "/v1/predict", credential: fixture.owner, body: question)
            #expect(prediction.status == .ok)
            let rows = prediction.json?["suggestions"]?.items ?? []
            #expect(rows.count == 3)
            #expect(rows.allSatisfy { !($0["why"]?.items.isEmpty ?? true) })
            let probabilities = rows.compactMap { row -> Double? in
                if case let .number(value, _)? = row["probability"] { return value }
                return nil
            }
            #expect(probabilities == probabilities.sorted(by: >))
            #expect(probabilities.allSatisfy { $0 > 0 && $0 <= 1 })

            // The same probabilities the engine gives for the same moment.
            let engine = Engine(database: fixture.database)
            let at = Date(timeIntervalSince1970: try Timestamp.parse("2026-11-20T08:30:00-08:00").secondsSince1970)
            let direct = try engine.predict(user: "me", at: at, utcOffset: -8 * 3600, k: 3)
            #expect(rows.map { $0.string("target") } == direct.suggestions.map(\.target.rawValue))

            let suggestions = try await client.send(.post, "/v1/suggestions", credential: fixture.owner,
                                                    body: #"{"user": "me", "at": "2026-11-20T08:30:00-08:00", "developer": true}"#)
            #expect(suggestions.status == .ok)
            #expect(!(suggestions.json?["suggestions"]?.items.isEmpty ?? true))

            for path in ["/v1/predict", "/v1/suggestions"] {
                let refused = try await client.send(.post, path, credential: fixture.coffee, body: question)
                #expect(refused.status == .forbidden, "\(path)")
            }
        }
    }

    @Test("bad questions name the field")
    func badQuestions() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            for (body, field) in [(#"{"k": 0}"#, "k"), (#"{"k": "four"}"#, "k"), (#"{"at": "noon"}"#, "at"),
                                  (#"{"context": {"focus": 1}}"#, "context.focus"), (#"{"colour": "red"}"#, "colour"),
                                  (#"{"developer": true}"#, "developer")] {
                let answer = try await client.send(.post, "/v1/predict", credential: fixture.owner, body: body)
                #expect(answer.status == .badRequest, "\(body)")
                #expect(answer.json?.string("error", "field") == field, "\(body)")
            }
        }
    }

    @Test("a donation through the API is learned by the held model without a refit")
    func heldModelLearns() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            try await client.send(.post, "/v1/donations", credential: fixture.owner, body: try ServiceFixture.sampleLines(),
                                  contentType: "application/x-ndjson")
            let question = #"{"user": "me", "at": "2026-11-20T08:30:00-08:00"}"#
            #expect(try await client.send(.post, "/v1/predict", credential: fixture.owner, body: question).status == .ok)
            let held = try await fixture.service.models.live(user: "me")
            let (before, fittedAt) = (held.key.donationCount, held.trainedAt)
            let stored = try await client.send(.post, "/v1/donations", credential: fixture.owner,
                                               body: donationLine(date: "2026-11-20T08:00:00-08:00"))
            #expect(stored.status == .created)
            #expect(try await client.send(.post, "/v1/predict", credential: fixture.owner, body: question).status == .ok)
            let after = try await fixture.service.models.live(user: "me")
            let (count, refittedAt) = (after.key.donationCount, after.trainedAt)
            #expect(count == before + 1)
            #expect(refittedAt == fittedAt)
        }
    }

    @Test("stats count only an app credential's own donations")
    func stats() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            try await client.send(.post, "/v1/donations", credential: fixture.owner, body: try ServiceFixture.sampleLines(),
                                  contentType: "application/x-ndjson")
            let all = try await client.send(.get, "/v1/stats", credential: fixture.owner)
            #expect(all.json?.int("rows") == 283)
            let own = try await client.send(.get, "/v1/stats", credential: fixture.coffee)
            let apps = own.json?["apps"]?.items.compactMap { $0.string("app") }
            #expect(apps == ["com.example.coffee"])
            #expect((own.json?.int("rows") ?? 0) < 283)
            let foreign = try await client.send(.get, "/v1/stats?app=com.example.weather", credential: fixture.coffee)
            #expect(foreign.status == .forbidden)
        }
    }

    @Test("metrics count requests per route and donations, for the owner only, without credentials in them")
    func metrics() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            try await client.send(.post, "/v1/donations", credential: fixture.coffee, body: donationLine())
            try await client.send(.get, "/healthz", credential: nil)
            #expect(try await client.send(.get, "/metrics", credential: fixture.coffee).status == .forbidden)
            let metrics = try await client.send(.get, "/metrics", credential: fixture.owner)
            #expect(metrics.status == .ok)
            #expect(metrics.text.contains(#"proactive_http_requests_total{route="/v1/donations",method="POST",status="201"} 1"#))
            #expect(metrics.text.contains("proactive_http_request_duration_seconds_bucket"))
            #expect(metrics.text.contains("proactive_donations_stored_total 1"))
            #expect(!metrics.text.contains(fixture.owner) && !metrics.text.contains(fixture.coffee))
        }
    }
}

@Suite("Service: held models")
struct LiveModelCacheTests {
    /// Stores three simulated users' two weeks; their names, sorted.
    static func storeSimulatedUsers(_ fixture: ServiceFixture) throws -> [String] {
        let log = Simulation(SimulationConfiguration(users: 3, days: 14, seed: 3)).donations()
        try SQLiteDonationStore(database: fixture.database).append(log, duplicates: .fail)
        return Array(Set(log.map(\.user))).sorted()
    }

    @Test("over the budget the least recently used model is saved and evicted")
    func eviction() async throws {
        let fixture = try ServiceFixture()
        let engine = Engine(database: fixture.database)
        let users = try Self.storeSimulatedUsers(fixture)
        let cache = LiveModelCache(engine: engine, budget: 1)  // room for the one just read
        for user in users { _ = try await cache.live(user: user) }
        #expect(await cache.count == 1)
        #expect(Set(try engine.savedModels().map(\.user)) == Set(users))
        // A donation to an evicted user's history is folded in when it is read again.
        let first = users[0]
        let count = try await cache.live(user: first).key.donationCount
        try engine.donate(Donation(user: first, app: "com.example.coffee", intent: "OrderCoffeeIntent", date: Date()))
        await cache.donated(users: [first])
        #expect(try await cache.live(user: first).key.donationCount == count + 1)
    }

    @Test("a held model that grows past the budget as it learns is evicted at the next periodic save, saved first")
    func growthCountsAgainstBudget() async throws {
        let fixture = try ServiceFixture()
        let engine = Engine(database: fixture.database)
        let users = Array(try Self.storeSimulatedUsers(fixture).prefix(2))
        let sizing = LiveModelCache(engine: engine, budget: 1 << 30)
        for user in users { _ = try await sizing.live(user: user) }
        let budget = await sizing.bytesInMemory  // room for both as read, not for either one grown
        let cache = LiveModelCache(engine: engine, budget: budget)
        let count = try await cache.live(user: users[0]).key.donationCount
        _ = try await cache.live(user: users[1])  // users[0] is now the least recently used
        #expect(await cache.count == 2)
        for minute in 0..<40 {
            try engine.donate(Donation(user: users[0], app: "com.example.coffee", intent: "OrderCoffeeIntent",
                                       date: Date(timeIntervalSince1970: 1_795_000_000 + Double(minute) * 60)))
        }
        await cache.donated(users: [users[0]])
        await cache.flush()
        #expect(await cache.count == 1)
        #expect(await cache.bytesInMemory <= budget)
        #expect(try engine.savedModels().first { $0.user == users[0] }?.donationCount == count + 40)
    }

    @Test("a held model's fit is counted once: `refitted` then says only what a later refresh did")
    func refitCountedOnce() async throws {
        let fixture = try ServiceFixture()
        let engine = Engine(database: fixture.database)
        try SQLiteDonationStore(database: fixture.database).append(try ServiceFixture.sampleLines().split(separator: "\n")
            .map { try DonationLineCodec.decode(String($0)) }, duplicates: .fail)
        let metrics = ServiceMetrics()
        func refits() -> String? { metrics.exposition().split(separator: "\n").first { $0.hasPrefix("proactive_refits_total ") }.map(String.init) }
        let cache = LiveModelCache(engine: engine, budget: 1 << 30, metrics: metrics)
        let loaded = try await cache.live(user: "me")  // no saved state: fitted now
        #expect(!loaded.refitted)
        #expect(refits() == "proactive_refits_total 1")
        for minute in 0..<3 {
            try engine.donate(Donation(user: "me", app: "com.example.coffee", intent: "OrderCoffeeIntent",
                                       date: Date(timeIntervalSince1970: 1_795_000_000 + Double(minute) * 60)))
            await cache.donated(users: ["me"])
            let held = try await cache.live(user: "me")  // folded in the background, or now
            #expect(!held.refitted)
            #expect(held.key.donationCount == loaded.key.donationCount + minute + 1)
        }
        await cache.flush()
        #expect(refits() == "proactive_refits_total 1")
    }

    @Test("flush saves what a held model learned")
    func flushSaves() async throws {
        let fixture = try ServiceFixture()
        let engine = Engine(database: fixture.database)
        try SQLiteDonationStore(database: fixture.database).append(try ServiceFixture.sampleLines().split(separator: "\n")
            .map { try DonationLineCodec.decode(String($0)) }, duplicates: .fail)
        let cache = LiveModelCache(engine: engine, budget: 1 << 30)
        let loaded = try await cache.live(user: "me")
        try engine.donate(Donation(user: "me", app: "com.example.coffee", intent: "OrderCoffeeIntent", date: Date()))
        await cache.donated(users: ["me"])
        await cache.flush()
        let saved = try #require(try engine.savedModels().first { $0.user == "me" })
        #expect(saved.donationCount == loaded.key.donationCount + 1)
    }

    /// `storeSimulatedUsers` in a store of their own (the fixture: keep it while the store is used), every
    /// user's model held by a cache, and its donation count.
    static func heldSimulatedUsers() async throws
        -> (fixture: ServiceFixture, engine: Engine, users: [String], cache: LiveModelCache, counts: [String: Int]) {
        let fixture = try ServiceFixture()
        let engine = Engine(database: fixture.database)
        let users = try storeSimulatedUsers(fixture)
        let cache = LiveModelCache(engine: engine, budget: 1 << 30)
        var counts: [String: Int] = [:]
        for user in users { counts[user] = try await cache.live(user: user).key.donationCount }
        return (fixture, engine, users, cache, counts)
    }

    @Test("shutdown folds pending donations for its folding time, then saves the models that learned something within its budget")
    func shutdownSaves() async throws {
        let (fixture, engine, users, cache, counts) = try await Self.heldSimulatedUsers()
        defer { withExtendedLifetime(fixture) {} }
        func donate(_ user: String, minute: Int) throws {
            try engine.donate(Donation(user: user, app: "com.example.coffee", intent: "OrderCoffeeIntent",
                                       date: Date(timeIntervalSince1970: 1_795_000_000 + Double(minute) * 60)))
        }
        // users[0] learns one donation (folded); users[1] gets one not folded yet; users[2] nothing.
        try donate(users[0], minute: 0)
        await cache.donated(users: [users[0]])
        _ = try await cache.live(user: users[0], waiting: true)
        try donate(users[1], minute: 1)
        #expect(await cache.saveForShutdown(budget: .zero) == (saved: 0, left: 1))
        #expect(await cache.saveForShutdown(budget: .seconds(60)) == (saved: 1, left: 0))
        let saved = Dictionary(uniqueKeysWithValues: try engine.savedModels().map { ($0.user, $0.donationCount) })
        #expect(saved[users[0]] == counts[users[0]]! + 1)
        #expect(saved[users[1]] == counts[users[1]])  // its new donation is caught up from the store when next read
        #expect(saved[users[2]] == counts[users[2]])
        #expect(await cache.saveForShutdown(budget: .seconds(60)) == (saved: 0, left: 0))  // nothing left to save
        let reread = LiveModelCache(engine: engine, budget: 1 << 30)
        #expect(try await reread.live(user: users[1]).key.donationCount == counts[users[1]]! + 1)
        // Donations announced but not folded yet are not folded at shutdown without time to fold: the model
        // is left behind the store, and its next read catches its saved state up with them.
        try donate(users[2], minute: 2)
        await cache.donated(users: [users[2]])  // shutting down: no background fold takes it
        #expect(await cache.saveForShutdown(budget: .seconds(60), folding: .zero) == (saved: 0, left: 1))
        #expect(try engine.savedModels().first { $0.user == users[2] }?.donationCount == counts[users[2]])
        let caughtUp = LiveModelCache(engine: engine, budget: 1 << 30)
        #expect(try await caughtUp.live(user: users[2]).key.donationCount == counts[users[2]]! + 1)
        // With time to fold, they are folded and saved with the model.
        #expect(await cache.saveForShutdown(budget: .seconds(60), folding: .seconds(60)) == (saved: 1, left: 0))
        #expect(try engine.savedModels().first { $0.user == users[2] }?.donationCount == counts[users[2]]! + 1)
        // The folding time is part of the budget: a zero budget folds nothing.
        try donate(users[0], minute: 3)
        await cache.donated(users: [users[0]])
        #expect(await cache.saveForShutdown(budget: .zero, folding: .seconds(60)) == (saved: 0, left: 1))
    }

    @Test("a question is answered off the actor only from a model the actor offered, while the store's marks stay")
    func heldForQuestion() async throws {
        let fixture = try ServiceFixture()
        let engine = Engine(database: fixture.database)
        let users = try Self.storeSimulatedUsers(fixture)
        let cache = LiveModelCache(engine: engine, budget: 1 << 30, erasures: engine.changeWatch())
        let user = users[0]
        #expect(cache.heldForQuestion(user: user) == nil)  // not held
        _ = try await cache.question(user: user)  // read: held from now on
        #expect(cache.heldForQuestion(user: user) == nil)  // read by that question: offered from its next one
        let asked = try await cache.question(user: user)
        let held = try #require(cache.heldForQuestion(user: user))
        #expect(held.version == asked.version)
        #expect(held.live.key.highWater == asked.live.key.highWater)
        #expect(cache.heldForQuestion(user: users[1]) == nil)  // another user: not held

        // A donation stored beside the cache moves the store's marks: the actor is asked, folds it, offers anew.
        try engine.donate(Donation(user: user, app: "com.example.coffee", intent: "OrderCoffeeIntent",
                                   date: Date(timeIntervalSince1970: 1_795_000_000)))
        #expect(cache.heldForQuestion(user: user) == nil)
        _ = try await cache.question(user: user)  // stored elsewhere: folded before this answer
        let folded = try await cache.question(user: user)
        #expect(folded.live.key.highWater > asked.live.key.highWater)
        #expect(try #require(cache.heldForQuestion(user: user)).version == folded.version)

        // Deleting donations: never answered off the actor again before the actor dropped the model.
        #expect(try engine.delete(.matching(DonationFilter(user: user, app: "com.example.coffee"))) > 0)
        #expect(cache.heldForQuestion(user: user) == nil)
        let reread = try await cache.question(user: user)
        #expect(reread.live.key.donationCount < folded.live.key.donationCount)
        #expect(cache.heldForQuestion(user: user) == nil)  // read again: offered from its next question on
        await cache.dropAll()
        #expect(cache.heldForQuestion(user: user) == nil)
    }

    @Test("shutdown saves held models several transactions at once: every dirty model saved, each once")
    func shutdownSavesInParallel() async throws {
        let (fixture, engine, users, cache, counts) = try await Self.heldSimulatedUsers()
        defer { withExtendedLifetime(fixture) {} }
        for (index, user) in users.enumerated() {
            try engine.donate(Donation(user: user, app: "com.example.coffee", intent: "OrderCoffeeIntent",
                                       date: Date(timeIntervalSince1970: 1_795_000_000 + Double(index) * 60)))
            await cache.donated(users: [user])
            _ = try await cache.live(user: user, waiting: true)
        }
        #expect(await cache.saveForShutdown(budget: .seconds(60), workers: 2) == (saved: users.count, left: 0))
        let saved = Dictionary(uniqueKeysWithValues: try engine.savedModels().map { ($0.user, $0.donationCount) })
        for user in users { #expect(saved[user] == counts[user]! + 1, "\(user)") }
        #expect(await cache.saveForShutdown(budget: .seconds(60), workers: 2) == (saved: 0, left: 0))
    }
}

@Suite("Service: retention after donations")
struct RetentionSweeperTests {
    let now = Date(timeIntervalSince1970: 1_795_000_000)
    func donation(daysAgo: Double, app: String = "com.example.coffee") -> Donation {
        Donation(user: "me", app: app, intent: "OrderCoffeeIntent", date: now.addingTimeInterval(-daysAgo * 86_400))
    }

    @Test("keeping everything is never due; a donation past its window is due at once; otherwise once per interval")
    func due() {
        let sweeper = RetentionSweeper(interval: .seconds(3600))
        #expect(!sweeper.isDue(after: [donation(daysAgo: 400)], policy: RetentionPolicy(), now: now))
        let policy = RetentionPolicy(defaultWindow: .days(30), byApp: ["com.example.notes": .days(7)])
        #expect(sweeper.isDue(after: [donation(daysAgo: 1)], policy: policy, now: now))  // the first sweep
        #expect(!sweeper.isDue(after: [donation(daysAgo: 1)], policy: policy, now: now))  // within the interval
        #expect(!sweeper.isDue(after: [donation(daysAgo: 10)], policy: policy, now: now))  // inside the default 30 days
        #expect(sweeper.isDue(after: [donation(daysAgo: 10, app: "com.example.notes")], policy: policy, now: now))  // past 7 days
        #expect(sweeper.isDue(after: [donation(daysAgo: 31)], policy: policy, now: now))
    }

    @Test("a batch line already past its window is acknowledged and erased at once")
    func batchPastWindow() async throws {
        let fixture = try ServiceFixture()
        try SQLitePrivacyStore(database: fixture.database).setRetention(.days(30))
        try await fixture.test { client in
            let recent = Date().timeIntervalSince1970 - 86_400
            let lines = [
                #"{"user":"me","app":"com.example.coffee","intent":"OrderCoffeeIntent","date":\#(recent)}"#,
                #"{"user":"me","app":"com.example.coffee","intent":"OrderCoffeeIntent","date":\#(recent - 40 * 86_400)}"#,
            ].joined(separator: "\n")
            let response = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: lines,
                                                 contentType: "application/x-ndjson")
            #expect(response.status == .ok)
        }
        #expect(try fixture.storedCount() == 1)
    }
}

@Suite("Service: listening")
struct ListeningTests {
    @Test("only loopback addresses count as loopback")
    func loopback() {
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "::1"] { #expect(Listening.isLoopback(host), "\(host)") }
        for host in ["0.0.0.0", "10.0.0.1", "192.168.1.2", "128.0.0.1", "::", "example.com", "127.0.0", "127.0.0.256"] {
            #expect(!Listening.isLoopback(host), "\(host)")
        }
    }

    @Test("the default socket directory is private to the caller")
    func socketDirectory() throws {
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("runtime-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        let path = try Listening.defaultSocketPath(environment: ["XDG_RUNTIME_DIR": runtime])
        #expect(path == runtime + "/proactive/proactive.sock")
        let mode = try FileManager.default.attributesOfItem(atPath: runtime + "/proactive")[.posixPermissions] as? Int
        #expect(mode == 0o700)
        chmod(runtime + "/proactive", 0o755)
        #expect(throws: StoreError.self) { try Listening.defaultSocketPath(environment: ["XDG_RUNTIME_DIR": runtime]) }
        // A plain file where the socket goes is not removed.
        chmod(runtime + "/proactive", 0o700)
        FileManager.default.createFile(atPath: path, contents: Data("keep".utf8))
        #expect(throws: StoreError.self) { try Listening.prepareSocket(at: path) }
        #expect(FileManager.default.fileExists(atPath: path))
    }
}

/// Each test bounds its own waits (30 s polls); the suite's time limit only catches a hang. It is generous
/// because the limit counts from the test's start, and in a full parallel run on 2 cores the CPU-bound
/// suites can hold the test's threads for minutes before its server answers.
@Suite("Service: connections on loopback", .timeLimit(.minutes(10)))
struct ServiceConnectionTests {
    /// The request counter line of `/metrics` for the donations route and `status`.
    static func donationRequests(_ metrics: String, status: Int) -> String? {
        metrics.split(separator: "\n").first { $0.hasPrefix(#"proactive_http_requests_total{route="/v1/donations",method="POST",status="\#(status)"}"#) }
            .map(String.init)
    }

    @Test("a client that closes mid-body is counted as a 400 (its error), not a 500")
    func clientClosesMidBody() async throws {
        let fixture = try ServiceFixture()
        try await fixture.live { port, client in
            let connection = try RawConnection(port: port)
            try await connection.send("POST /v1/donations HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(fixture.owner)\r\n"
                                      + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"user\": \"m")
            try await Task.sleep(for: .milliseconds(100))
            connection.close()
            // The request is counted once the server has seen the connection go (polled, at most 30 seconds).
            var metrics = ""
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                metrics = try await client.send(.get, "/metrics", credential: fixture.owner).text
                if metrics.contains(#"route="/v1/donations""#) { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(Self.donationRequests(metrics, status: 500) == nil, "\(metrics)")
            #expect(Self.donationRequests(metrics, status: 400)?.hasSuffix(" 1") == true, "\(metrics)")
        }
        #expect(try fixture.storedCount() == 0)
    }

    @Test("a chunked body over --max-body gets a 413 and the server then closes the connection")
    func oversizeChunkedBodyClosesTheConnection() async throws {
        let fixture = try ServiceFixture { $0.maxBody = 1024 }
        try await fixture.live { port, _ in
            let connection = try RawConnection(port: port)
            defer { connection.close() }
            let chunk = String(repeating: " ", count: 4096)
            // The body's end (a zero-length chunk) is never sent: the client waits for the answer.
            try await connection.send("POST /v1/donations HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(fixture.owner)\r\n"
                                      + "Content-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n"
                                      + String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n")
            let answer = try await connection.readUntilClosed(timeout: .seconds(30))  // generous: a loaded 2-core machine
            #expect(answer.text.hasPrefix("HTTP/1.1 413"), "\(answer.text)")
            #expect(answer.text.contains("too_large"), "\(answer.text)")
            #expect(answer.text.lowercased().contains("connection: close"), "\(answer.text)")
            #expect(answer.closed, "the server kept the connection open after its 413")
        }
        #expect(try fixture.storedCount() == 0)
    }
}
