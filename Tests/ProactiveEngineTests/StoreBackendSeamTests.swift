import Foundation
import ProactiveCore
import ProactiveStore
import Synchronization
import Testing
@testable import ProactiveEngine

/// The Engine on any `StoreBackend`: built with `init(storage:)` over a backend whose stores are
/// SQLite's reached through the store contracts only (each behind a forwarder, so nothing can
/// reach a `SQLite…Store` by casting), it answers as `Engine(path:)` does.
@Suite("Store backend seam")
struct StoreBackendSeamTests {
    static let at = Date(timeIntervalSince1970: 1_795_759_200)  // 2026-11-27T06:00:00Z, after the sample log

    @Test("donate, train, predict, delete, predict: the same answers through the contracts as on the file")
    func engineOnContractsAnswersAsOnTheFile() throws {
        let direct = try TemporaryStore(), seam = try TemporaryStore()
        let file = try direct.engine()
        let backend = ForwardingBackend(try SQLiteBackend(path: seam.path))
        let engine = Engine(storage: backend)
        try engine.setRetention(.keepAll)
        let log = try sampleLog()
        for engine in [file, engine] {
            let outcomes = try engine.donate(batch: log)
            #expect(outcomes.allSatisfy { if case .stored = $0 { true } else { false } })
            try engine.train(user: "me", now: Self.at)
        }
        func answers(_ engine: Engine) throws -> [String] {
            // In the sample's personal Focus, where its messages are sent.
            try engine.predict(user: "me", at: Self.at, utcOffset: -28_800, context: ["focus": "personal"], k: 6, now: Self.at).suggestions
                .map { "\($0.target.rawValue) \($0.probability) \($0.why)" }
        }
        let before = try answers(file)
        #expect(before.count == 6)
        #expect(try answers(engine) == before)
        #expect(before.contains { $0.contains("com.example.messages") })

        let request = DeletionRequest(app: "com.example.messages")
        let deleted = try file.delete(request, spelling: { "--" + $0.rawValue })
        #expect(deleted.deleted == 124)
        #expect(try engine.delete(request, spelling: { "--" + $0.rawValue }) == deleted)
        let after = try answers(file)
        #expect(!after.contains { $0.contains("com.example.messages") })
        #expect(try answers(engine) == after)

        #expect(try engine.storeReport(checkIntegrity: true).schema == SQLiteBackend.currentSchema)
        #expect(try engine.storeReport(checkIntegrity: true).integrityProblems.isEmpty)
        #expect(try engine.modelStatuses().map(\.isConsistent) == [true])
        #expect(engine.changeWatch() != nil)
        #expect(backend.reached.withLock { $0 }.isSuperset(of: ["definitions", "donations", "focus", "privacy", "states"]))
    }

    /// No file of the Engine, the Runtime, the service or the CLI names a SQLite store type, the
    /// SQLite database or its change watch, except the places that open a SQLite store.
    @Test("only the SQLite-only places name SQLite's types")
    func adaptersNameNoSQLiteType() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let anySQLite = try Regex(#"SQLite\w*Store\b|ProactiveDatabase|StoreErasureWatch|SQLiteBackend"#)
        // File → the names it may use: the Engine's SQLite initialisers, the scratch stores of a
        // replay and a routine check, the CLI's one place that opens a store, and `--version`.
        let allowed: [String: Set<String>] = [
            "Sources/ProactiveEngine/Engine.swift": ["ProactiveDatabase", "SQLiteBackend"],
            "Sources/ProactiveEngine/EngineReplay.swift": ["SQLiteBackend"],
            "Sources/ProactiveEngine/FrontEndValues.swift": ["SQLiteBackend"],  // re-exported for the CLI's one place that opens a store
            "Sources/ProactiveCLI/StoreOptions.swift": ["SQLiteBackend"],
            "Sources/ProactiveCLI/Proactive.swift": ["SQLiteBackend"],
        ]
        var found: [String] = []
        var files = 0
        for module in ["ProactiveEngine", "ProactiveRuntime", "ProactiveService", "ProactiveCLI"] {
            let folder = root.appendingPathComponent("Sources/\(module)")
            let enumerator = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
            for case let url as URL in enumerator where url.pathExtension == "swift" {
                files += 1
                let relative = String(url.path.dropFirst(root.path.count + 1))
                for (number, line) in try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    for match in line.matches(of: anySQLite) where !(allowed[relative] ?? []).contains(String(line[match.range])) {
                        found.append("\(relative):\(number + 1): \(line[match.range])")
                    }
                }
            }
        }
        #expect(files > 80)
        #expect(found == [])
    }
}

// MARK: - SQLite's stores through the contracts only

/// A backend whose stores forward to SQLite's through their protocols, noting which parts were reached.
final class ForwardingBackend: StoreBackend {
    let base: SQLiteBackend
    let reached = Mutex<Set<String>>([])

    init(_ base: SQLiteBackend) { self.base = base }

    private func note(_ part: String) { _ = reached.withLock { $0.insert(part) } }

    var donations: any DonationStore { note("donations"); return ForwardingDonations(base: base.donations) }
    var states: any ModelStateStore { note("states"); return ForwardingStates(base: base.states) }
    var definitions: any IntentDefinitionStore { note("definitions"); return ForwardingDefinitions(base: base.definitions) }
    var declarations: any DeclarationStore { note("declarations"); return ForwardingDeclarations(base: base.declarations) }
    var focus: any FocusStore { note("focus"); return ForwardingFocus(base: base.focus) }
    var privacy: any PrivacyStore { note("privacy"); return ForwardingPrivacy(base: base.privacy) }
    var credentials: any CredentialRecordStore { get throws(StoreError) { note("credentials"); return try base.credentials } }
    var location: String { "forwarding " + base.location }
    var filePath: String? { base.filePath }
    func appliedMigrations() throws(StoreError) -> [String] { try base.appliedMigrations() }
    func integrityProblems() throws(StoreError) -> [String] { try base.integrityProblems() }
    func modelStatuses(user: String?) throws(StoreError) -> [ModelStateStatus] { try base.modelStatuses(user: user) }
    func changeWatch() -> (any StoreChangeWatch)? { base.changeWatch() }
}

struct ForwardingDonations: DonationStore {
    let base: any DonationStore
    func append(_ donations: [Donation], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult {
        try base.append(donations, duplicates: duplicates)
    }
    func appendEach(prepared: PreparedDonations) throws(StoreError) -> [Result<Bool, StoreError>] { try base.appendEach(prepared: prepared) }
    func inOneTransaction<Result>(_ body: (any DonationAppender) throws -> Result) throws -> Result { try base.inOneTransaction(body) }
    func bulkLoading<Result>(_ body: () throws -> Result) rethrows -> Result { try base.bulkLoading(body) }
    func appendEach(batches: [PreparedDonations]) throws(StoreError) -> [Result<[Result<Bool, StoreError>], StoreError>] {
        try base.appendEach(batches: batches)
    }
    func delete(_ deletion: DonationDeletion) throws(StoreError) -> Int { try base.delete(deletion) }
    func donations(forUser user: String, in dates: DateSpan) throws(StoreError) -> [Donation] { try base.donations(forUser: user, in: dates) }
    func page(matching filter: DonationFilter, after cursor: DonationCursor?, limit: Int) throws(StoreError) -> DonationPage {
        try base.page(matching: filter, after: cursor, limit: limit)
    }
    func statistics(matching filter: DonationFilter) throws(StoreError) -> DonationStatistics { try base.statistics(matching: filter) }
    func users() throws(StoreError) -> [String] { try base.users() }
    func timeZone(forUser user: String) throws(StoreError) -> String? { try base.timeZone(forUser: user) }
    func setTimeZone(_ identifier: String?, forUser user: String) throws(StoreError) { try base.setTimeZone(identifier, forUser: user) }
}

struct ForwardingStates: ModelStateStore {
    let base: any ModelStateStore
    func load(user: String, name: String, heavy: HeavyPartRead) throws(StoreError) -> SavedModelState? {
        try base.load(user: user, name: name, heavy: heavy)
    }
    func save(_ state: SavedModelState) throws(StoreError) -> Bool { try base.save(state) }
    func save(_ states: [SavedModelState]) throws(StoreError) -> [Bool] { try base.save(states) }
    func list() throws(StoreError) -> [ModelStateSummary] { try base.list() }
    func behind() throws(StoreError) -> [(user: String, name: String, pending: Int)] { try base.behind() }
    func delete(user: String, name: String?) throws(StoreError) -> Int { try base.delete(user: user, name: name) }
    func snapshot(ofUser user: String) throws(StoreError) -> (donations: [StoredDonation], highWater: Int64, erasureMark: Int64) {
        try base.snapshot(ofUser: user)
    }
    func changes(ofUser user: String, after highWater: Int64, erasuresAfter erasureMark: Int64) throws(StoreError)
        -> (added: [StoredDonation], erased: [ErasedDonation], highWater: Int64, erasureMark: Int64) {
        try base.changes(ofUser: user, after: highWater, erasuresAfter: erasureMark)
    }
    func usersWithPendingErasures() throws(StoreError) -> [String] { try base.usersWithPendingErasures() }
    func recentDonations(ofUser user: String, atOrBefore date: Date, limit: Int) throws(StoreError) -> [Donation] {
        try base.recentDonations(ofUser: user, atOrBefore: date, limit: limit)
    }
    func donations(ofUser user: String, from start: Date, to end: Date) throws(StoreError) -> [Donation] {
        try base.donations(ofUser: user, from: start, to: end)
    }
}

struct ForwardingDefinitions: IntentDefinitionStore {
    let base: any IntentDefinitionStore
    func all() throws(StoreError) -> [IntentDefinition] { try base.all() }
    func replace(with definitions: [IntentDefinition], apps: Set<String>) throws(StoreError) { try base.replace(with: definitions, apps: apps) }
}

struct ForwardingDeclarations: DeclarationStore {
    let base: any DeclarationStore
    func replaceShortcutSet(_ set: StoredShortcutSet) throws(StoreError) { try base.replaceShortcutSet(set) }
    func shortcutSets(user: String) throws(StoreError) -> [StoredShortcutSet] { try base.shortcutSets(user: user) }
    func replaceTimeline(_ timeline: StoredTimeline) throws(StoreError) { try base.replaceTimeline(timeline) }
    func timelines(user: String) throws(StoreError) -> [StoredTimeline] { try base.timelines(user: user) }
    func appendFeedback(_ events: [StoredFeedback]) throws(StoreError) { try base.appendFeedback(events) }
    func feedback(user: String) throws(StoreError) -> [StoredFeedback] { try base.feedback(user: user) }
}

struct ForwardingFocus: FocusStore {
    let base: any FocusStore
    func addSchedule(_ schedule: StoredFocusSchedule) throws(StoreError) -> Int64 { try base.addSchedule(schedule) }
    func schedules() throws(StoreError) -> [StoredFocusSchedule] { try base.schedules() }
    func removeSchedule(id: Int64) throws(StoreError) -> Bool { try base.removeSchedule(id: id) }
    func recordChange(_ change: StoredFocusChange) throws(StoreError) { try base.recordChange(change) }
    func changes() throws(StoreError) -> [StoredFocusChange] { try base.changes() }
    func declareFilter(app: String, declaration: String, keeping values: [String: [String: ParameterValue]]) throws(StoreError) {
        try base.declareFilter(app: app, declaration: declaration, keeping: values)
    }
    func removeFilter(app: String) throws(StoreError) -> Bool { try base.removeFilter(app: app) }
    func replaceValues(app: String, focus: String, _ values: [String: ParameterValue]) throws(StoreError) {
        try base.replaceValues(app: app, focus: focus, values)
    }
    func setAppContext(_ context: StoredAppContext) throws(StoreError) { try base.setAppContext(context) }
    func filter(app: String) throws(StoreError) -> StoredFocusFilter? { try base.filter(app: app) }
    func allFilters() throws(StoreError) -> [StoredFocusFilter] { try base.allFilters() }
}

struct ForwardingPrivacy: PrivacyStore {
    let base: any PrivacyStore
    func isRecordingPaused() throws(StoreError) -> Bool { try base.isRecordingPaused() }
    func setRecordingPaused(_ paused: Bool, at date: Date) throws(StoreError) { try base.setRecordingPaused(paused, at: date) }
    func pausedSince() throws(StoreError) -> Date? { try base.pausedSince() }
    func retentionPolicy() throws(StoreError) -> RetentionPolicy { try base.retentionPolicy() }
    func setRetention(_ window: RetentionWindow, app: String?) throws(StoreError) { try base.setRetention(window, app: app) }
    func clearRetention(app: String) throws(StoreError) -> Bool { try base.clearRetention(app: app) }
    func applyRetention(now: Date, bulk: Bool) throws(StoreError) -> RetentionReport { try base.applyRetention(now: now, bulk: bulk) }
    func forget(user: String) throws(StoreError) -> [String: Int] { try base.forget(user: user) }
    func forget(user: String, app: String?) throws(StoreError) -> [String: Int] { try base.forget(user: user, app: app) }
    func eraseTraces() throws(StoreError) -> Bool { try base.eraseTraces() }
    func compact() throws(StoreError) -> StoreCompactionReport { try base.compact() }
}
