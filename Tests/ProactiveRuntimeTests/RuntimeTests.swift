import Foundation
import Logging
import ProactiveCore
import ProactiveEngine
import ProactiveRanking
import ProactiveRuntime
import ProactiveStore
import Testing

/// The runtime driven as an app embeds it, without HTTP: writes through it are seen by the next
/// answer, and so are writes another engine makes on the same store file.
// The keeper's periodic pass runs on the cooperative pool, which the CPU-bound suites of a full
// parallel run can hold for minutes on 2 cores: its wait is bounded by this limit, not a short deadline.
@Suite("Runtime", .timeLimit(.minutes(10)))
struct RuntimeTests {
    /// A store file in a fresh temporary directory, keeping every donation.
    final class Store: @unchecked Sendable {
        let directory: URL
        let path: String

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-runtime-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            path = directory.appendingPathComponent("store.sqlite").path
            try SQLitePrivacyStore(database: try ProactiveDatabase(path: path)).setRetention(.keepAll)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    /// 14 mornings (Los Angeles, November 2026) of a latte at 07:15 and the news at 07:20 for user u.
    static func mornings() -> [Donation] {
        (1...14).flatMap { day -> [Donation] in
            let morning = Date(timeIntervalSince1970: 1_793_546_100 + Double(day - 1) * 86_400)  // 2026-11-01T07:15-08:00
            return [
                Donation(user: "u", app: "com.example.coffee", intent: "OrderCoffeeIntent", parameters: ["item": .string("latte")],
                         date: morning, utcOffset: -8 * 3600, identifier: "coffee-\(day)"),
                Donation(user: "u", app: "com.example.news", intent: "ReadNewsIntent", date: morning.addingTimeInterval(300),
                         utcOffset: -8 * 3600, identifier: "news-\(day)"),
            ]
        }
    }

    /// The apps of the top suggestions for u on the next morning, floors lifted.
    static func apps(_ runtime: Runtime) async throws -> Set<String> {
        let session = try await runtime.session(user: "u")
        let next = Date(timeIntervalSince1970: 1_793_546_100 + 14 * 86_400)
        let result = try session.suggest(at: next, utcOffset: -8 * 3600, k: 8, developerMode: true)
        return Set(result.suggestions.map(\.app))
    }

    @Test("a held model counts against the memory budget as its saved parts do, read or just saved")
    func heldBytesAreTheSavedParts() async throws {
        let store = try Store()
        let engine = try Engine(path: store.path)
        _ = try engine.donate(batch: Self.mornings())
        let now = Date(timeIntervalSince1970: 1_793_546_100 + 14 * 86_400)  // the morning after, for training and reading
        _ = try engine.train(users: ["u"], now: now)
        let runtime = Runtime(engine: try Engine(path: store.path))
        _ = try await runtime.session(user: "u", now: now)  // read from the store and held
        let saved = try #require(try runtime.engine.savedModels().first { $0.user == "u" })
        #expect(await runtime.models.bytesInMemory == saved.bytes, "held as read: not the size of the saved light and heavy parts")
    }

    @Test("donate, ask, delete, ask again: the deleted app is gone from the next answer")
    func deleteThenAsk() async throws {
        let store = try Store()
        let runtime = Runtime(engine: try Engine(path: store.path))
        let outcomes = try await runtime.donate(Self.mornings())
        #expect(outcomes.filter { if case .stored = $0 { true } else { false } }.count == 28)
        #expect(try await Self.apps(runtime) == ["com.example.coffee", "com.example.news"])

        let deleted = try await runtime.delete(.matching(DonationFilter(app: "com.example.news")))
        #expect(deleted == 14)
        #expect(try await Self.apps(runtime) == ["com.example.coffee"])
        // Donating the same batch again stores only what was deleted; once folded (questions do not wait
        // for it, `live` does), the held model knows it again.
        let again = try await runtime.donate(Self.mornings())
        #expect(again.filter { $0 == .duplicate }.count == 14)
        _ = try await runtime.models.live(user: "u")
        #expect(try await Self.apps(runtime) == ["com.example.coffee", "com.example.news"])
    }

    @Test("a deletion by a second engine on the same file is seen before the next answer")
    func externalDeletion() async throws {
        let store = try Store()
        let runtime = Runtime(engine: try Engine(path: store.path))
        _ = try await runtime.donate(Self.mornings())
        #expect(try await Self.apps(runtime) == ["com.example.coffee", "com.example.news"])  // the model is held now

        let other = try Engine(path: store.path, mode: .mustExist)
        #expect(try other.delete(.matching(DonationFilter(app: "com.example.coffee"))) == 14)
        #expect(try await Self.apps(runtime) == ["com.example.news"])
    }

    @Test("every change goes through one path: the observer hears the runtime's writes and another engine's deletions")
    func oneInvalidationPath() async throws {
        let store = try Store()
        let heard = Heard()
        let runtime = Runtime(engine: try Engine(path: store.path)) { heard.append($0) }
        _ = try await runtime.donate(Self.mornings())
        #expect(heard.changes == [.donations(["u"])])
        _ = try await Self.apps(runtime)
        _ = try await runtime.delete(.matching(DonationFilter(app: "com.example.news")))
        #expect(heard.changes.last == .erasure)
        _ = try Engine(path: store.path, mode: .mustExist).delete(.matching(DonationFilter(app: "com.example.coffee")))
        _ = try? await Self.apps(runtime)
        #expect(heard.changes == [.donations(["u"]), .erasure, .erasure])
    }

    /// The weather checked at 07:17 on the 14 mornings of `mornings()`, for `user`.
    static func weather(user: String = "u") -> [Donation] {
        (1...14).map { day in
            Donation(user: user, app: "com.example.weather", intent: "CheckWeatherIntent",
                     date: Date(timeIntervalSince1970: 1_793_546_220 + Double(day - 1) * 86_400), utcOffset: -8 * 3600,
                     identifier: "weather-\(user)-\(day)")
        }
    }

    @Test("donations a second engine stores for a held user are in the runtime's next answer for that user")
    func externalDonations() async throws {
        let store = try Store()
        let runtime = Runtime(engine: try Engine(path: store.path))
        _ = try await runtime.donate(Self.mornings() + Self.weather(user: "v"))
        #expect(try await Self.apps(runtime) == ["com.example.coffee", "com.example.news"])  // u's model is held now
        let (_, before) = try await runtime.models.question(user: "u")
        #expect(try await runtime.models.question(user: "u").version == before)  // nothing stored: the held model as it was

        let other = try Engine(path: store.path, mode: .mustExist)
        // Another user's donations: u's held model is not folded again.
        #expect(try other.donate(batch: Self.weather(user: "w")).count == 14)
        #expect(try await runtime.models.question(user: "u").version == before)
        // u's own: the very next answer has them, without a donation through the runtime.
        #expect(try other.donate(batch: Self.weather()).count == 14)
        #expect(try await Self.apps(runtime) == ["com.example.coffee", "com.example.news", "com.example.weather"])
        #expect(try await runtime.models.live(user: "u", waiting: false).key.donationCount == 42)
        // The question path predict uses (`live(waiting: false)`) catches up the same way.
        _ = try other.donate(Self.extra(5))
        #expect(try await runtime.models.live(user: "u", waiting: false).key.donationCount == 43)
    }

    /// A donation for u on the morning after `mornings()`, `minutes` past 07:15.
    static func extra(_ minutes: Int) -> Donation {
        Donation(user: "u", app: "com.example.coffee", intent: "OrderCoffeeIntent", parameters: ["item": .string("latte")],
                 date: Date(timeIntervalSince1970: 1_793_546_100 + 14 * 86_400 + Double(minutes) * 60), utcOffset: -8 * 3600,
                 identifier: "extra-\(minutes)")
    }

    /// u's top suggestions on the morning after `mornings()`: targets and probabilities, floors lifted.
    static func answer(_ runtime: Runtime) async throws -> [String] {
        let session = try await runtime.session(user: "u")
        let next = Date(timeIntervalSince1970: 1_793_546_100 + 14 * 86_400 + 600)
        return try session.suggest(at: next, utcOffset: -8 * 3600, k: 8, developerMode: true).suggestions
            .map { "\($0.target.rawValue) \($0.score)" }
    }

    @Test("a retrain holds what train gives on the same donations, then learns online from there")
    func retrainHoldsWhatTrainGives() async throws {
        let now = Date(timeIntervalSince1970: 1_793_546_100 + 14 * 86_400)
        let donations = Self.mornings() + Self.weather(user: "v") + Self.weather()
        let store = try Store()
        let runtime = Runtime(engine: try Engine(path: store.path))
        _ = try await runtime.donate(donations)
        _ = try await Self.answer(runtime)  // u's model read (fitted on the first read) and held
        _ = try await runtime.donate([Self.extra(0), Self.extra(2)])
        _ = try await runtime.models.live(user: "u")  // learned online
        // The same donations in another store, trained as `proactive train` does.
        let other = try Store()
        let trainedEngine = try Engine(path: other.path)
        _ = try trainedEngine.donate(batch: donations + [Self.extra(0), Self.extra(2)])
        _ = try trainedEngine.train(users: ["u", "v"], now: now)
        let trained = try await Self.answer(Runtime(engine: trainedEngine))
        #expect(try await Self.answer(runtime) != trained, "learned online, the held model answers otherwise")
        let (_, heldVersion) = try await runtime.models.question(user: "u")

        // Stopped before holding anything: nothing changes.
        let stopped = await runtime.models.retrain(now: now, stop: { true })
        #expect(stopped.abandoned && stopped.replaced == 0)
        #expect(try await runtime.models.question(user: "u").version == heldVersion)

        let done = await runtime.models.retrain(now: now)
        #expect(done.trained == 2 && done.replaced == 1 && done.failures.isEmpty && !done.abandoned)  // v was not held
        #expect(try await Self.answer(runtime) == trained, "the held model answers as the trained one")
        #expect(try await runtime.models.question(user: "u").version != heldVersion)
        // And learns from there: a later donation is folded into the trained model.
        _ = try await runtime.donate([Self.extra(4)])
        #expect(try await runtime.models.live(user: "u").key.donationCount == 45)  // 28 mornings, 14 weather, 3 extra
    }

    @Test("the shutdown log lines give durations in seconds to the millisecond")
    func durationsInTheLog() {
        #expect(Duration.milliseconds(250).logText == "0.250 s")
        #expect((Duration.seconds(12) + .microseconds(34_400)).logText == "12.034 s")
        #expect(Duration.nanoseconds(82_643).logText == "0.000 s")
    }

    @Test("the model keeper runs without a lifecycle library: it saves periodically, and once more when stopped")
    func keeperWithoutLifecycle() async throws {
        let store = try Store()
        let runtime = Runtime(engine: try Engine(path: store.path))
        _ = try await runtime.donate(Self.mornings())
        _ = try await Self.apps(runtime)  // held now
        func saved() throws -> Int? { try runtime.engine.savedModels().first { $0.user == "u" }?.donationCount }

        let keeper = ModelKeeper(models: runtime.models, interval: .milliseconds(20), logger: Logger(label: "test"))
        let running = Task { await keeper.run() }
        _ = try await runtime.donate([Self.extra(0)])
        while try saved() != 29 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(try saved() == 29)  // folded and saved by a periodic pass
        // Stopped right after a donation: the shutdown folds it (within its folding time) and saves it,
        // and a model read afterwards has it too.
        _ = try await runtime.donate([Self.extra(1)])
        keeper.stop()
        await running.value
        #expect(keeper.isStopped)
        #expect(try saved() == 30)
        #expect(try await LiveModelCache(engine: runtime.engine, budget: 1 << 30).live(user: "u").key.donationCount == 30)

        // Cancelling the task ends it too (after its shutdown save); a stopped keeper's run returns at once.
        let second = ModelKeeper(models: runtime.models, interval: .seconds(3600), logger: Logger(label: "test"))
        let task = Task { await second.run() }
        task.cancel()
        await task.value
        await keeper.run()
    }
}

/// The changes an observer was told of, in order.
final class Heard: @unchecked Sendable {
    private let lock = NSLock()
    private var heard: [Runtime.Change] = []

    func append(_ change: Runtime.Change) { lock.withLock { heard.append(change) } }
    var changes: [Runtime.Change] { lock.withLock { heard } }
}
