import Foundation
import ProactiveCore
import ProactiveRanking
import ProactiveStore
import Testing
@testable import ProactiveEngine

/// The use cases every adapter (the CLI, the service, an embedding app) calls: one set of rules each.
@Suite("Engine use cases")
struct EngineUseCaseTests {
    static let day = Date(timeIntervalSince1970: 1_795_564_800)  // 2026-11-25T00:00:00Z
    static let flag: @Sendable (DeletionRequest.Field) -> String = { "--" + $0.rawValue }
    static let query: @Sendable (DeletionRequest.Field) -> String = { $0 == .all ? "all=true" : $0.rawValue }

    static func donation(_ identifier: String, app: String = "com.example.coffee", user: String = "me", hours: Double = 0) -> Donation {
        Donation(user: user, app: app, intent: "OrderCoffeeIntent", date: day.addingTimeInterval(hours * 3_600), utcOffset: 0,
                 identifier: identifier, group: "g")
    }

    struct Refusal: CustomTestStringConvertible, Sendable {
        var request: DeletionRequest
        var field: DeletionRequest.Field?
        var message: String
        var testDescription: String { message }
    }

    static let refusals: [Refusal] = [
        Refusal(request: DeletionRequest(), field: nil, message: "say what to delete (--identifier, --group, --app, --user, --after, --before), or --all"),
        Refusal(request: DeletionRequest(group: "g"), field: .app, message: "--identifier and --group delete one app's donations: add --app"),
        Refusal(request: DeletionRequest(identifiers: ["a"], group: "g", app: "x"), field: .group, message: "give --identifier or --group, not both"),
        Refusal(request: DeletionRequest(group: "g", app: "x", user: "me"), field: .group, message: "--identifier and --group combine only with --app"),
        Refusal(request: DeletionRequest(identifiers: ["a"], app: "x", all: true), field: .identifier, message: "combine only with --app"),
        Refusal(request: DeletionRequest(user: "me", all: true), field: .all, message: "--all deletes everything"),
        Refusal(request: DeletionRequest(identifiers: ["a", ""], app: "x"), field: .identifier, message: "--identifier needs a non-empty value"),
        Refusal(request: DeletionRequest(user: ""), field: .user, message: "--user needs a non-empty value"),
        Refusal(request: DeletionRequest(after: day, before: day), field: .after, message: "--after must be earlier than --before"),
    ]

    @Test("a deletion the rules refuse names the field as the caller spells it", arguments: refusals)
    func deletionRules(_ refusal: Refusal) throws {
        for spelling in [Self.flag, Self.query] {
            do {
                _ = try Engine.deletion(refusal.request, spelling: spelling)
                Issue.record("accepted: \(refusal.request)")
            } catch {
                #expect(error.code == .invalidRequest)
                #expect(error.field == refusal.field.map(spelling))
                let expected = spelling(.app) == "--app" ? refusal.message : refusal.message.replacingOccurrences(of: "--all", with: "all=true")
                    .replacingOccurrences(of: "--", with: "")
                #expect(error.description.contains(expected), "\(error.description)")
            }
        }
    }

    @Test("an accepted deletion is what the criteria describe")
    func acceptedDeletions() throws {
        #expect(try Engine.deletion(DeletionRequest(group: "g", app: "x"), spelling: Self.flag) == .group("g", app: "x"))
        #expect(try Engine.deletion(DeletionRequest(identifiers: ["a"], app: "x"), spelling: Self.flag) == .identifiers(["a"], app: "x"))
        #expect(try Engine.deletion(DeletionRequest(all: true), spelling: Self.flag) == .matching(.everything))
        #expect(try Engine.deletion(DeletionRequest(user: "me", before: Self.day), spelling: Self.flag)
                == .matching(DonationFilter(user: "me", dates: DateSpan(start: nil, end: Self.day))))
    }

    @Test("stated zones are adopted only by users without one, and only by the owner")
    func adoptTimeZones() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        try engine.setTimeZone("Asia/Tokyo", forUser: "kept")
        #expect(try engine.adoptTimeZones(["me": "Europe/Paris", "kept": "Europe/Berlin"]) == ["me"])
        #expect(try engine.timeZone(forUser: "me") == "Europe/Paris")
        #expect(try engine.timeZone(forUser: "kept") == "Asia/Tokyo")
        #expect(try engine.adoptTimeZones(["me": "Europe/Berlin"]).isEmpty)
        let app = Engine(database: engine.database, access: .app("com.example.coffee"))
        #expect(throws: StoreError.self) { try app.adoptTimeZones(["other": "Europe/Paris"]) }
        #expect(try engine.timeZone(forUser: "other") == nil)
    }

    @Test("delete checks, deletes as the acting party and settles the erasure")
    func deleteRequest() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        for (index, app) in ["com.example.coffee", "com.example.coffee", "com.example.weather"].enumerated() {
            try engine.donate(Self.donation("d\(index)", app: app, hours: Double(index)))
        }
        #expect(throws: EngineError.self) { try engine.delete(DeletionRequest(), spelling: Self.flag) }
        let weather = Engine(database: engine.database, access: .app("com.example.weather"))
        #expect(try weather.delete(DeletionRequest(all: true), spelling: Self.query) == DeletionOutcome(deleted: 1, logTruncated: true))
        #expect(try engine.delete(DeletionRequest(identifiers: ["d0"], app: "com.example.coffee"), spelling: Self.flag).deleted == 1)
        #expect(try engine.users() == ["me"])
        #expect(try engine.storeReport().statistics.donations == 1)
    }

    @Test("k has one bound, the same for every adapter")
    func kBound() {
        #expect(Engine.Limits.kProblem(0) == "must be an integer from 1 to 100")
        #expect(Engine.Limits.kProblem(101) == "must be an integer from 1 to 100")
        #expect(Engine.Limits.kProblem(Int?.none) == "must be an integer from 1 to 100")
        #expect(Engine.Limits.kProblem(Int64(100)) == nil && Engine.Limits.kProblem(1) == nil)
    }

    @Test("a paused store refuses recording with since when and the caller's way to resume")
    func recordingPaused() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        try engine.requireRecording()
        try engine.setRecordingPaused(true, at: Self.day)
        #expect(try engine.recordingPausedSince() == Self.day)
        do {
            try engine.requireRecording(resume: "proactive pause off")
            Issue.record("recording was not refused")
        } catch let error as StoreError {
            #expect(error.code == .recordingPaused)
            #expect(error.message == "recording is paused since 2026-11-25T00:00:00Z: donations and feedback are refused and nothing was stored "
                    + "(proactive pause off resumes; nothing stored was deleted)")
        }
        try engine.setRecordingPaused(false, at: Self.day)
        #expect(try engine.recordingPausedSince() == nil)
    }

    @Test("the owner's maintenance is refused to an app: pause, retention, forget, compact")
    func ownerOnly() throws {
        let store = try TemporaryStore()
        let owner = try store.engine()
        try owner.donate(Self.donation("d0"))
        let engine = Engine(database: owner.database, access: .app("com.example.coffee"))
        let refusals: [() throws -> Void] = [
            { try engine.setRecordingPaused(true, at: Self.day) }, { try engine.setRetention(.days(1)) },
            { _ = try engine.clearRetention(app: "x") }, { _ = try engine.forget(user: "me") }, { _ = try engine.compact() },
        ]
        for refusal in refusals {
            #expect { try refusal() } throws: { ($0 as? StoreError)?.code == .accessDenied }
        }
        try owner.setRetention(.days(7), app: "com.example.health")
        #expect(try owner.retentionPolicy().byApp == ["com.example.health": .days(7)])
        #expect(try owner.clearRetention(app: "com.example.health"))
        #expect(try owner.forget(user: "me")["donation"] == 1)
        #expect(try owner.compact().logTruncated)
    }

    @Test("the store report counts what the acting party sees, with the users' zones and the schema")
    func storeReport() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        try engine.donate(Self.donation("d0"))
        try engine.donate(Self.donation("d1", app: "com.example.weather", user: "you"))
        try engine.setTimeZone("Europe/Paris", forUser: "me")
        let report = try engine.storeReport(checkIntegrity: true)
        #expect(report.statistics.donations == 2 && report.timeZones == ["me": "Europe/Paris"] && report.integrityProblems.isEmpty)
        #expect(report.schema != "none")
        let coffee = Engine(database: engine.database, access: .app("com.example.coffee"))
        #expect(try coffee.storeReport().statistics.donations == 1)
        #expect(try coffee.users() == ["me"])
    }

    @Test("export writes what the acting party sees as JSON Lines, and refuses the store's own files")
    func export() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        try engine.donate(Self.donation("d0"))
        try engine.donate(Self.donation("d1", app: "com.example.weather"))
        let output = store.directory.appendingPathComponent("out.jsonl").path
        let coffee = Engine(database: engine.database, access: .app("com.example.coffee"))
        #expect(try coffee.exportDonations(toPath: output) == 1)
        #expect(try String(contentsOfFile: output, encoding: .utf8).contains("com.example.weather") == false)
        #expect(try engine.exportDonations(matching: DonationFilter(app: "com.example.weather"), toPath: output) == 1)
        #expect { try engine.exportDonations(toPath: store.path, protectedPaths: [store.path]) } throws: {
            ($0 as? StoreError)?.code == .invalidRequest
        }
    }

    @Test("the Focus timeline is written through the Engine: schedules and changes by the owner, app contexts by the app")
    func focusTimeline() throws {
        let store = try TemporaryStore()
        let owner = try store.engine()
        let mail = Engine(database: owner.database, access: .app("com.example.mail"))
        let schedule = try FocusSchedule(focus: "work", weekdays: [2, 3, 4, 5, 6], start: 540, end: 1_050, timeZone: TimeZone(identifier: "UTC")!)
        #expect { try mail.addFocusSchedule(schedule) } throws: { ($0 as? StoreError)?.code == .accessDenied }
        let id = try owner.addFocusSchedule(schedule)
        #expect(try owner.focusTimeline().ids == [id])
        let before = try owner.recordFocusChange("sleep", at: Self.day)
        #expect(before.ids == [id] && before.timeline.changes.isEmpty)
        #expect(try owner.focusTimeline().timeline.focus(at: Self.day.addingTimeInterval(60)) == "sleep")
        #expect(try owner.removeFocusSchedule(id: id))
        #expect(try !owner.removeFocusSchedule(id: id))
        // A context needs a declared filter; another app's is refused.
        #expect(throws: FocusError.self) { try mail.setFocusAppContext(app: "com.example.mail", focus: "work", AppContext(badgeCount: 2)) }
        #expect { try mail.setFocusAppContext(app: "com.example.notes", focus: "work", AppContext()) } throws: {
            ($0 as? StoreError)?.code == .accessDenied
        }
    }

    @Test("parallel training reports each step and fits what serial training fits; a failing user is skipped")
    func parallelTraining() async throws {
        let log = simulatedLog(users: 3, days: 21)
        let users = Set(log.map(\.user)).sorted()
        let (serialStore, parallelStore) = (try TemporaryStore(), try TemporaryStore())
        let serial = try serialStore.engine()
        let parallel = try parallelStore.engine()
        for engine in [serial, parallel] { try SQLiteDonationStore(database: engine.database).append(log, duplicates: .fail) }
        let now = Self.day
        try serial.train(users: users, now: now)
        var events: [String] = []
        let run = await parallel.train(users: users + ["nobody"], concurrency: 2, now: now) { event in
            switch event {
            case let .walked(user, _, total, failure): events.append("walked \(total)" + (failure == nil ? "" : " failed \(user)"))
            case let .prior(prior): events.append("prior \(prior != nil)")
            case let .fitted(_, _, total, result): events.append("fitted \(total) \((try? result.get()) != nil)")
            }
        }
        #expect(run.trained.map(\.user) == users)
        #expect(run.failures.count == 1 && run.failures[0].contains("user nobody has no donations"))
        #expect(events.sorted() == ["fitted 3 true", "fitted 3 true", "fitted 3 true", "prior true",
                                    "walked 4", "walked 4", "walked 4", "walked 4 failed nobody"])
        #expect(events[4] == "prior true")
        for user in users {
            let at = now.addingTimeInterval(-3_600)
            let expected = try serial.predict(user: user, at: at, k: 100, now: now).suggestions.map(\.probability)
            #expect(try parallel.predict(user: user, at: at, k: 100, now: now).suggestions.map(\.probability) == expected)
        }
    }

    @Test("an import refuses while paused, sets zones, erases what aged out first, and updates saved models by policy")
    func importPolicy() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        let log = store.directory.appendingPathComponent("log.jsonl").path
        try (0 ..< 3).map { DonationLineCodec.encode(Self.donation("n\($0)", hours: Double($0))) }.joined(separator: "\n")
            .write(toFile: log, atomically: true, encoding: .utf8)
        try engine.setRecordingPaused(true, at: Self.day)
        #expect { try engine.beginImport(strict: false, batchSize: 10, resume: "proactive pause off") } throws: {
            ($0 as? StoreError)?.code == .recordingPaused && "\($0)".contains("proactive pause off resumes")
        }
        try engine.setRecordingPaused(false, at: Self.day)
        for index in 0 ..< 10 { try engine.donate(Self.donation("k\(index)", hours: -12 * Double(index + 1))) }
        try engine.train(user: "me", now: Self.day)
        try engine.donate(Self.donation("old", hours: -24 * 30))
        try engine.setRetention(.days(7))
        let run = try engine.beginImport(timeZones: [("me", "Europe/Paris")], strict: false, batchSize: 10, now: Self.day.addingTimeInterval(86_400))
        #expect(run.erased.donations == 1)
        #expect(try engine.timeZone(forUser: "me") == "Europe/Paris")
        let summary = try run.importer.importJSONLines(path: log)
        #expect(summary.imported == 3)
        #expect(try run.finish(imported: summary.imported, models: .defer) == nil)
        #expect(try run.finish(imported: 0, models: .update) == nil)
        let update = try #require(try run.finish(imported: summary.imported, models: .update))
        #expect(update.updated.map(\.folded) == [3] && update.deferred.isEmpty)
    }
}
