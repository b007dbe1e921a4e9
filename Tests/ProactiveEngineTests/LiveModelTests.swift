import Foundation
import GRDB
import ProactiveCore
import ProactiveLab
import ProactiveModels
@testable import ProactiveEngine
@testable import ProactiveStore
import Synchronization
import Testing

/// The live model contract: queries read one caught-up state, which learns
/// exactly what `evaluate --online` learns, unlearns deletions, and survives
/// corruption and concurrent writers.
@Suite("Live models")
struct LiveModelTests {
    /// Alternating "suggest, then donate" over a log gives exactly the ranks of
    /// the online evaluation of that log (same training share, same model).
    @Test(arguments: ["sample", "simulated"])
    func replayEqualsOnlineEvaluation(log name: String) async throws {
        let log = name == "sample" ? try sampleLog() : simulatedLog()
        let split = Int(Double(log.count) * 0.6)
        let (train, test) = (Array(log[..<split]), Array(log[split...]))
        let evaluation = await Evaluation.run(train: train, test: test, model: ModelRegistry.builtIn.defaultEntry,
                                              options: EvaluationOptions(online: true))

        let store = try TemporaryStore()
        var engine = try store.engine()
        engine.persistAfter = 7  // save and reload the state often on the way
        try SQLiteDonationStore(database: engine.database).append(train, duplicates: .fail)
        try engine.train(users: Set(train.map(\.user)).sorted())  // one population prior, as `evaluate` learns it
        let resolver = TargetResolver()
        var ranks: [Int] = []
        for donation in test {
            let target = resolver.target(for: donation).key
            let session = try engine.rankingSession(user: donation.user)
            let result = try session.suggest(at: donation.date, utcOffset: donation.utcOffset, context: donation.context)
            ranks.append(rank(of: target, in: result.distribution))
            try engine.donate(donation)
        }
        #expect(ranks == evaluation.ranks)
        #expect(ranks.contains { $0 > 1 } && ranks.contains(1))  // the comparison is not vacuous
    }

    /// `predict`, `suggest` and the live model itself give the same probabilities for the same moment.
    @Test func predictSuggestAndTheLibraryAgree() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        let log = try sampleLog()
        try SQLiteDonationStore(database: engine.database).append(Array(log.dropLast(10)), duplicates: .fail)
        try engine.train(user: "me")
        for donation in log.suffix(10) { try engine.donate(donation) }  // a state behind the store
        for hour in [7.5, 12.25, 21.0] {
            let date = Date(timeIntervalSince1970: 1_795_795_200 + hour * 3600)  // 2026-11-27T16:00:00Z plus `hour` hours
            let prediction = try engine.predict(user: "me", at: date, utcOffset: -8 * 3600, context: ["place": "home"], k: 5)
            let suggestion = try engine.suggest(user: "me", at: date, utcOffset: -8 * 3600, context: ["place": "home"], k: 5)
            let live = try engine.liveModel(user: "me")
            let direct = live.model.distribution(at: try engine.moment(for: live, at: date, utcOffset: -8 * 3600, context: ["place": "home"]))
            #expect(prediction.suggestions.count == 5)
            for row in prediction.suggestions {
                #expect(suggestion.distribution.probability(of: row.target) == row.probability)
                #expect(direct.probability(of: row.target) == row.probability)
            }
        }
    }

    /// `updateSavedModels` (what `import` runs) folds new donations into the saved state, so the next
    /// query has nothing to catch up, and the state equals the one a query would have caught up;
    /// a state left behind by more than the limit is deferred, untouched.
    @Test func importUpdatesSavedModels() throws {
        let log = try sampleLog()
        let store = try TemporaryStore()
        let engine = try store.engine()
        try SQLiteDonationStore(database: engine.database).append(Array(log.dropLast(12)), duplicates: .fail)
        try engine.train(user: "me")
        let lazyStore = try TemporaryStore()
        var lazy = try lazyStore.engine()
        lazy.persistAfter = 1  // each query's catch-up is saved, so each round folds only that round's donations
        try SQLiteDonationStore(database: lazy.database).append(Array(log.dropLast(12)), duplicates: .fail)
        try lazy.train(user: "me")
        for donations in [Array(log.suffix(12).prefix(5)), Array(log.suffix(7))] {
            try SQLiteDonationStore(database: engine.database).append(donations, duplicates: .fail)
            try SQLiteDonationStore(database: lazy.database).append(donations, duplicates: .fail)
            let update = try engine.updateSavedModels()
            #expect(update.updated.map(\.folded) == [donations.count] && update.deferred.isEmpty)
            #expect(try engine.updateSavedModels() == Engine.SavedModelsUpdate())  // nothing left behind
            let read = try engine.liveModel(user: "me")
            #expect(read.folded == 0 && !read.refitted)
            let caught = try lazy.liveModel(user: "me")
            #expect(caught.folded == donations.count)
            #expect(read.model.serialized() == caught.model.serialized())
        }
        try SQLiteDonationStore(database: engine.database).append(
            [Donation(user: "me", app: "com.example.notes", intent: "open", date: log.last!.date.addingTimeInterval(60))], duplicates: .fail)
        let saved = try #require(try engine.states.load(user: "me", name: "blend"))
        let deferred = try engine.updateSavedModels(maxPending: 0)
        #expect(deferred.updated.isEmpty && deferred.deferred.map(\.pending) == [1])
        #expect(try engine.states.load(user: "me", name: "blend")?.bytes == saved.bytes)
    }

    /// A query saves what it caught up only when the next reader would repeat real work: a scheduled
    /// refit of the blend's weights is saved; folding a donation or two is not.
    @Test func queriesSaveOnlyCostlyCatchUps() throws {
        let log = try sampleLog()
        let store = try TemporaryStore()
        var engine = try store.engine()
        engine.persistAfterMilliseconds = 3_600_000  // judge by the rule, not by this machine's speed
        try SQLiteDonationStore(database: engine.database).append(Array(log.dropLast(40)), duplicates: .fail)
        try engine.train(user: "me")
        var savedHighWater = try #require(try engine.states.load(user: "me", name: "blend")).key.highWater
        var saves = 0
        for donation in log.suffix(40) {
            let before = try #require(try engine.liveModel(user: "me").model as? BlendModel)
            try engine.donate(donation)
            let after = try engine.liveModel(user: "me")
            let refitted = (after.model as? BlendModel)?.weights != before.weights
            let highWater = try #require(try engine.states.load(user: "me", name: "blend")).key.highWater
            #expect((highWater != savedHighWater) == refitted, "saved exactly when the weights were refitted")
            if highWater != savedHighWater { saves += 1 }
            savedHighWater = highWater
        }
        #expect(saves >= 1 && saves < 40)
    }

    /// A refresh told to stop (shutdown) stops between donations: the model holds a prefix of them, its
    /// high-water mark is the last one learned, and the next refresh learns the rest, leaving exactly the
    /// model of one refresh that learned them all.
    @Test func stoppedRefreshLeavesTheRestPending() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        let log = simulatedLog(users: 1, days: 28)
        let cut = log.count / 3
        let user = log[0].user
        try SQLiteDonationStore(database: engine.database).append(Array(log[..<cut]), duplicates: .fail)
        try engine.train(user: user)
        let loaded = try engine.liveModel(user: user)
        for donation in log[cut...] { try engine.donate(donation) }
        let pending = log.count - cut
        #expect(pending > 2 * Engine.stopCheckEvery)

        var whole = loaded
        #expect(try engine.refresh(&whole))
        let asked = Mutex(0)
        var stopped = loaded
        let complete = try engine.refresh(&stopped, stop: { asked.withLock { $0 += 1; return $0 >= 2 } })
        #expect(!complete)
        #expect(stopped.caughtUp.learned == 2 * Engine.stopCheckEvery)
        let ids = try engine.states.changes(ofUser: user, after: loaded.key.highWater, erasuresAfter: loaded.key.erasureMark).added.map(\.id)
        #expect(stopped.key.highWater == ids[2 * Engine.stopCheckEvery - 1])
        #expect(stopped.model.serialized() != whole.model.serialized())

        #expect(try engine.refresh(&stopped))
        #expect(stopped.key.highWater == whole.key.highWater)
        #expect(stopped.model.serialized() == whole.model.serialized())
    }

    /// A catch-up learns the stored donations of one instant together (each scored before any is learned),
    /// as training and `evaluate --online` do: the state is the model's batch update, not one by one.
    @Test func foldLearnsOneInstantTogether() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        let log = try sampleLog()
        let user = log[0].user
        try SQLiteDonationStore(database: engine.database).append(log, duplicates: .fail)
        try engine.train(user: user)
        let loaded = try engine.liveModel(user: user)
        // Two known targets again, both ten minutes after the last donation.
        let instant = log.map(\.date).max()!.addingTimeInterval(600)
        let donations = [log[log.count - 1], try #require(log.last { $0.app != log[log.count - 1].app })].map { known in
            var again = known
            again.date = instant
            again.identifier = nil
            return again
        }
        try SQLiteDonationStore(database: engine.database).append(donations, duplicates: .fail)
        var caught = loaded
        #expect(try engine.refresh(&caught))
        #expect(caught.caughtUp.learned == 2)
        let events = donations.map { loaded.inputs.event(loaded.inputs.prepare($0)) }
        var (together, apart) = (loaded.model, loaded.model)
        together.update(with: events, memo: nil)
        for event in events { apart.update(with: event, memo: nil) }
        let (caughtBytes, togetherBytes, apartBytes) = (caught.model.serialized(), together.serialized(), apart.serialized())
        #expect(caughtBytes == togetherBytes, "the fold is not the batch update")
        #expect(togetherBytes != apartBytes, "the second donation's row saw the first as just used")
    }

    /// A moment after the user's last donation takes its history from the donations the model
    /// held when loaded or caught up; any moment's history is the store's.
    @Test func heldLatestDonationsAreTheStoresHistory() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        let log = try sampleLog()
        try SQLiteDonationStore(database: engine.database).append(Array(log.dropLast(5)), duplicates: .fail)
        var live = try engine.liveModel(user: "me")
        #expect(live.latest?.count == engine.recentLimit)
        for donation in log.suffix(5) { try engine.donate(donation) }
        try engine.refresh(&live)
        let last = try #require(log.map(\.date).max())
        for date in [last.addingTimeInterval(3600), last, last.addingTimeInterval(-86_400 * 3), last.addingTimeInterval(-86_400 * 20)] {
            let held = try engine.moment(for: live, at: date, utcOffset: -8 * 3600)
            let read = try engine.states.recentDonations(ofUser: "me", atOrBefore: date, limit: engine.recentLimit).map(live.inputs.prepare)
            #expect(held.recent == read.map(live.inputs.event), "\(date)")
            #expect(!held.recent.isEmpty)
        }
    }

    /// New donations are learned without a refit. A deletion is unlearned
    /// exactly: the profile model removes the event (its scores equal a fit
    /// without it), the blend is refitted on what remains (its weights were
    /// fitted on rows that saw the event), so its state equals a fresh `train`.
    @Test(arguments: ["blend", "profile"])
    func catchUpLearnsAndUnlearns(model name: String) throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        let choice = ModelChoice(name: name)
        let log = simulatedLog(users: 1, days: 28)
        let cut = log.count * 2 / 3
        let secret = Donation(user: log[0].user, app: "com.example.bank", intent: "PayIntent", parameters: ["payee": .string("SECRET-PAYEE-77")],
                              date: log[cut / 2].date, utcOffset: log[cut / 2].utcOffset, identifier: "pay-1")
        try SQLiteDonationStore(database: engine.database).append(Array(log[..<cut]), duplicates: .fail)
        let user = log[0].user
        try engine.train(user: user, choice)
        for donation in log[cut...] { try engine.donate(donation) }
        try engine.donate(secret)
        var live = try engine.liveModel(user: user, choice)
        #expect(!live.refitted)
        #expect(live.caughtUp.learned == log.count - cut + 1)
        #expect(live.targets.keys.contains { $0.rawValue.contains("SECRET-PAYEE-77") })

        #expect(try engine.delete(.identifiers(["pay-1"], app: "com.example.bank")) == 1)
        live = try engine.liveModel(user: user, choice)
        #expect(live.key.donationCount == log.count)
        #expect(!live.targets.keys.contains { $0.rawValue.contains("SECRET-PAYEE-77") })
        let fresh = try engine.train(user: user, choice)
        #expect(fresh.key.donationCount == live.key.donationCount)
        #expect(Set(fresh.targets.keys) == Set(live.targets.keys))
        let moment = try engine.moment(for: live, at: log[log.count - 1].date.addingTimeInterval(600), context: ["place": "home"])
        let (ours, theirs) = (live.model.distribution(at: moment), fresh.model.distribution(at: moment))
        for target in fresh.targets.keys {
            #expect(abs(ours.probability(of: target) - theirs.probability(of: target)) < 1e-9, "\(target)")
        }
        if name == "blend" { #expect(live.model.serialized() == fresh.model.serialized()) }

        // Nothing of the deleted donation stays in the files once compacted.
        _ = try SQLitePrivacyStore(database: engine.database).compact()
        #expect(!store.filesContain("SECRET-PAYEE-77"))
    }

    /// A corrupt saved state is reported by name and rebuilt from the donations.
    @Test func aCorruptStateIsRebuilt() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        try SQLiteDonationStore(database: engine.database).append(try sampleLog(), duplicates: .fail)
        let trained = try engine.train(user: "me")
        try engine.database.writer.write { db in
            try db.execute(sql: "UPDATE model_state SET bytes = substr(bytes, 1, length(bytes) / 2) WHERE user = 'me'")
        }
        let live = try engine.liveModel(user: "me")
        #expect(live.refitted)
        #expect(live.notes.contains { $0.contains("unreadable") && $0.contains("blend") })
        #expect(live.model.serialized() == trained.model.serialized())
        #expect(try !engine.liveModel(user: "me").refitted)  // the rebuilt state was saved
    }

    /// A change of intent definitions refits (only then); other users are untouched.
    @Test func definitionsChangeRefits() throws {
        let store = try TemporaryStore()
        var engine = try store.engine()
        try SQLiteDonationStore(database: engine.database).append(try sampleLog(), duplicates: .fail)
        try engine.train(user: "me")
        #expect(try !engine.liveModel(user: "me").refitted)
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("datasets/sample/definitions.json")
        engine.definitionsOverlay = try IntentDefinitionSet.parse(String(contentsOf: url, encoding: .utf8))
        let live = try engine.liveModel(user: "me")
        #expect(live.refitted)
        #expect(live.notes.contains { $0.contains("intent definitions") })
    }

    /// Two processes (two connections) donating to the same user while reading
    /// its state: every donation ends up in the model exactly once.
    @Test func concurrentWritersLearnEachDonationOnce() async throws {
        let store = try TemporaryStore()
        let setup = try store.engine()
        let log = simulatedLog(users: 1, days: 20)
        let user = log[0].user
        try SQLiteDonationStore(database: setup.database).append(Array(log[..<(log.count / 2)]), duplicates: .fail)
        try setup.train(user: user)
        let rest = Array(log[(log.count / 2)...])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for part in 0 ..< 2 {
                let path = store.path
                group.addTask {
                    var engine = try Engine(path: path)  // its own connection pool, as another process would have
                    engine.persistAfter = 3
                    for (index, donation) in rest.enumerated() where index % 2 == part {
                        try engine.donate(donation)
                        if index % 5 == part { _ = try engine.liveModel(user: user) }
                    }
                }
            }
            try await group.waitForAll()
        }
        let live = try Engine(path: store.path).liveModel(user: user)
        #expect(!live.refitted)
        #expect(live.key.donationCount == log.count)
        #expect((live.model as? BlendModel)?.profile.log.count == log.count)
    }
}
