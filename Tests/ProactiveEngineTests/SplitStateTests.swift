import Foundation
import GRDB
import ProactiveCore
@testable import ProactiveEngine
@testable import ProactiveModels
@testable import ProactiveStore
import Testing

/// Saved states in two parts: a suggestion at a moment after the newest donation reads only the light
/// part; everything else reads both, from one read of one row; states saved in one piece (by the
/// previous version) still open and answer the same.
@Suite("Live models: states saved in two parts")
struct SplitStateTests {
    static let zone = -8 * 3600

    /// A trained user (all of the sample log but its last `held` donations) and the log.
    static func trained(held: Int = 6) throws -> (TemporaryStore, Engine, [Donation]) {
        let store = try TemporaryStore()
        let engine = try store.engine()
        let log = try sampleLog()
        try SQLiteDonationStore(database: engine.database).append(Array(log.dropLast(held)), duplicates: .fail)
        try engine.train(user: "me")
        return (store, engine, log)
    }

    static func partSizes(_ engine: Engine) throws -> (light: Int, heavy: Int?) {
        try engine.database.writer.read { db in
            let row = try #require(try Row.fetchOne(db, sql: """
                SELECT length(bytes), (SELECT length(heavy) FROM model_state_heavy WHERE user = 'me') FROM model_state WHERE user = 'me'
                """))
            return (row[0], row[1])
        }
    }

    /// What `suggest` answers through the whole state (the ranking session reads it whole).
    static func wholeAnswer(_ engine: Engine, at date: Date) throws -> SuggestionResult {
        try engine.rankingSession(user: "me").suggest(at: date, utcOffset: zone, context: ["place": "home"], k: 6, developerMode: true)
    }

    /// Whether `model` was read without its heavy part (its log has no records).
    static func readWithoutRecords(_ model: any LiveLearningModel) -> Bool {
        guard let blend = model as? BlendModel, case .absent = blend.profile.log.savedHead else { return false }
        return true
    }

    static func expectSame(_ a: SuggestionResult, _ b: SuggestionResult, _ label: String) {
        #expect(a.suggestions == b.suggestions, "\(label)")
        #expect(a.distribution.probabilities == b.distribution.probabilities, "\(label)")
        #expect(a.activity == b.activity, "\(label)")
        #expect(a.moment.recent == b.moment.recent, "\(label)")
    }

    @Test func aSuggestionAfterTheNewestDonationReadsOnlyTheLightPart() throws {
        let (_, engine, log) = try Self.trained()
        let sizes = try Self.partSizes(engine)
        #expect(try #require(sizes.heavy) > sizes.light, "the rows and the log are the heavy part: \(sizes)")
        let newest = try #require(log.dropLast(6).map(\.date).max())
        let inputs = try engine.inputs(for: "me", ModelChoice())
        for minutes: Double in [0, 7, 90, 60 * 30] {
            let date = newest.addingTimeInterval(minutes * 60)
            let light = try #require(try engine.scoringModel(inputs, at: date))
            #expect(light.scoringOnly && Self.readWithoutRecords(light.model))
            let answer = try engine.suggest(user: "me", at: date, utcOffset: Self.zone, context: ["place": "home"], k: 6, developerMode: true)
            Self.expectSame(answer, try Self.wholeAnswer(engine, at: date), "\(minutes) minutes after the newest donation")
        }
        // An earlier moment reads the log: the whole state, and the same answer as before.
        let earlier = newest.addingTimeInterval(-3 * 3600)
        #expect(try engine.scoringModel(inputs, at: earlier) == nil)
        Self.expectSame(try engine.suggest(user: "me", at: earlier, utcOffset: Self.zone, context: ["place": "home"], k: 6, developerMode: true),
                        try Self.wholeAnswer(engine, at: earlier), "earlier")
        // A donation the state has not learned: the whole state, caught up.
        try engine.donate(log[log.count - 6])
        let later = newest.addingTimeInterval(86_400)
        #expect(try engine.scoringModel(inputs, at: later) == nil)
        Self.expectSame(try engine.suggest(user: "me", at: later, utcOffset: Self.zone, context: ["place": "home"], k: 6, developerMode: true),
                        try Self.wholeAnswer(engine, at: later), "after a donation")
    }

    /// `predict` at a moment after the newest donation reads the heavy part without its tail (the
    /// training rows): the log's records, and so the reasons, are there, the rows are not; it answers as
    /// the whole state does, and the store refuses to save what it read.
    @Test func aPredictionReadsTheHeavyPartWithoutTheRows() throws {
        let (_, engine, log) = try Self.trained()
        let sizes = try Self.partSizes(engine)
        let newest = try #require(log.dropLast(6).map(\.date).max())
        let inputs = try engine.inputs(for: "me", ModelChoice())
        let saved = try #require(try engine.states.load(user: "me", name: "blend", heavy: .prefix { ModelArchive.heavyPrefixLength(of: $0) }))
        let prefix = try #require(saved.heavy)
        #expect(saved.heavyIsPrefix && prefix.count < (sizes.heavy ?? 0) / 2, "the rows are most of the heavy part: \(prefix.count) of \(sizes)")
        #expect(throws: StoreError.self) { try engine.states.save(saved) }
        for minutes: Double in [0, 7, 90, 60 * 30] {
            let date = newest.addingTimeInterval(minutes * 60)
            let explaining = try #require(try engine.scoringModel(inputs, at: date, explaining: true))
            let blend = try #require(explaining.model as? BlendModel)
            #expect(explaining.scoringOnly && explaining.explains && !Self.readWithoutRecords(blend) && blend.rows.labels.isEmpty)
            let answer = try engine.predict(user: "me", at: date, utcOffset: Self.zone, context: ["place": "home"], k: 6)
            let whole = try engine.predict(try engine.liveModel(user: "me"), at: date, utcOffset: Self.zone, context: ["place": "home"], k: 6)
            #expect(answer.suggestions.map(\.target) == whole.suggestions.map(\.target), "\(minutes) minutes after the newest donation")
            #expect(answer.suggestions.map(\.probability) == whole.suggestions.map(\.probability), "\(minutes) minutes")
            #expect(answer.suggestions.map(\.why) == whole.suggestions.map(\.why), "\(minutes) minutes")
            #expect(answer.suggestions.contains { !$0.why.isEmpty }, "the reasons read the log")
        }
        #expect(try engine.scoringModel(inputs, at: newest.addingTimeInterval(-3 * 3600), explaining: true) == nil, "an earlier moment reads it whole")
        // A model without training rows has no tail to leave out: predict takes the state that one read gave, whole.
        let profile = ModelChoice(name: "profile", timeZoneOverride: nil)
        try engine.train(user: "me", profile)
        let whole = try engine.explainingModel(try engine.inputs(for: "me", profile), at: newest, now: newest)
        #expect(!whole.scoringOnly && whole.explains && whole.model.name == "profile")
    }

    /// A state saved in one piece (as format 8 saved every state; now in the current format, since a format-8
    /// blend predates the habit-rate signal and is refitted), in a store before `model_state_heavy`, opens,
    /// migrates and answers exactly as the same state saved in two; its next save writes it in two.
    @Test func aStateSavedInOnePieceStillAnswersTheSame() throws {
        let (store, engine, log) = try Self.trained()
        let newest = try #require(log.dropLast(6).map(\.date).max())
        let dates = [newest.addingTimeInterval(600), newest.addingTimeInterval(-7200)]
        let before = try dates.map { try engine.suggest(user: "me", at: $0, utcOffset: Self.zone, context: ["place": "home"], k: 6, developerMode: true) }
        let predicted = try engine.predict(user: "me", at: dates[0], utcOffset: Self.zone, context: ["place": "home"], k: 6)
        let model = try #require(try engine.liveModel(user: "me").model as? BlendModel)
        let onePiece = ModelArchive.encode(model)
        try engine.database.writer.writeWithoutTransaction { db in
            try db.execute(sql: "UPDATE model_state SET bytes = ? WHERE user = 'me'", arguments: [Data(onePiece)])
            try db.execute(sql: "DROP TABLE model_state_heavy")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v11_model_state_heavy_part'")
        }
        var reopened = try Engine(path: store.path)
        #expect(try reopened.database.appliedMigrations().last == "v11_model_state_heavy_part")
        #expect(try Self.partSizes(reopened) == (onePiece.count, nil))
        let after = try dates.map { try reopened.suggest(user: "me", at: $0, utcOffset: Self.zone, context: ["place": "home"], k: 6, developerMode: true) }
        for (a, b) in zip(before, after) { Self.expectSame(a, b, "one piece") }
        let again = try reopened.predict(user: "me", at: dates[0], utcOffset: Self.zone, context: ["place": "home"], k: 6)
        #expect(again.suggestions.map(\.target) == predicted.suggestions.map(\.target))
        #expect(again.suggestions.map(\.probability) == predicted.suggestions.map(\.probability))
        #expect(again.suggestions.map(\.why) == predicted.suggestions.map(\.why))
        #expect(try Self.partSizes(reopened) == (onePiece.count, nil), "reading saves nothing")
        reopened.persistAfter = 1
        try reopened.donate(log[log.count - 6])
        _ = try reopened.liveModel(user: "me")
        #expect(try Self.partSizes(reopened).heavy != nil, "the next save writes two parts")
    }

    /// A model read for scoring only never takes the heavy part of a later save: learning reads the whole
    /// state again (one read of one row), and the store refuses to save a light part without its heavy part.
    @Test func aLightPartNeverMeetsAnotherSavesHeavyPart() throws {
        let (store, engine, log) = try Self.trained()
        let newest = try #require(log.dropLast(6).map(\.date).max())
        var light = try #require(try engine.scoringModel(try engine.inputs(for: "me", ModelChoice()), at: newest.addingTimeInterval(60)))
        let first = try #require(try engine.states.load(user: "me", name: "blend", withHeavyPart: false))
        #expect(first.heavy == nil && first.hasHeavyPart)
        #expect(throws: StoreError.self) { try engine.states.save(first) }

        // Another process learns two donations and saves.
        var other = try Engine(path: store.path)
        other.persistAfter = 1
        for donation in log.suffix(6).prefix(2) { try other.donate(donation) }
        _ = try other.liveModel(user: "me")
        let second = try #require(try engine.states.load(user: "me", name: "blend"))
        #expect(second.key.highWater > first.key.highWater)
        #expect { try LiveModels.decode(first.bytes, heavy: second.heavy) } throws: { "\($0)".contains("not the one saved with this light part") }

        try engine.refresh(&light)
        #expect(!light.scoringOnly)
        let whole = try engine.liveModel(user: "me")
        #expect(light.key == whole.key)
        #expect(light.model.serialized() == whole.model.serialized())
        #expect(try engine.save(&light))
    }

    /// `models` reports both parts; forgetting the user leaves no byte of either.
    @Test func bothPartsAreCountedAndErased() throws {
        let (store, engine, _) = try Self.trained()
        let sizes = try Self.partSizes(engine)
        #expect(try engine.savedModels().first?.bytes == sizes.light + (sizes.heavy ?? 0))
        let heavy = try #require(try engine.states.load(user: "me", name: "blend")?.heavy)
        let marker = Array(heavy[heavy.count / 2 ..< heavy.count / 2 + 48])
        func filesHold(_ bytes: [UInt8]) -> Bool {
            [store.path, store.path + "-wal"].contains { file in
                FileManager.default.contents(atPath: file)?.range(of: Data(bytes)) != nil
            }
        }
        _ = try SQLitePrivacyStore(database: engine.database).eraseTraces()
        #expect(filesHold(marker))
        _ = try SQLitePrivacyStore(database: engine.database).forget(user: "me")
        _ = try SQLitePrivacyStore(database: engine.database).compact()
        #expect(!filesHold(marker))
    }
}
