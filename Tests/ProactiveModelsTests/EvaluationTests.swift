import Foundation
import ProactiveCore
@testable import ProactiveLab
@testable import ProactiveModels
import Testing

/// An `open` donation of `app` at `monday + hours`.
func donation(_ app: String, hours: Double, user: String = "u1", offset: Int? = 0) -> Donation {
    Donation(user: user, app: app, intent: "open", date: Date(timeIntervalSince1970: monday + hours * 3600), utcOffset: offset)
}

struct FailingTrainer: ModelTrainer {
    struct Refusal: Error, CustomStringConvertible { var description: String { "no data" } }
    let name = "failing"
    func fit(_ training: TrainingSet) throws -> MostFrequentModel { throw Refusal() }
}

@Suite("Evaluation harness")
struct EvaluationTests {
    static let registry = ModelRegistry.builtIn
    static let train = [donation("a", hours: 1), donation("b", hours: 2), donation("a", hours: 3), donation("x", hours: 1, user: "u2")]
    /// u1: a, c (new), c, b; u2's donations interleaved.
    static let test = [donation("a", hours: 4), donation("x", hours: 4.5, user: "u2"), donation("c", hours: 5),
                       donation("c", hours: 6), donation("y", hours: 6.5, user: "u2"), donation("b", hours: 7)]

    static func run(_ name: String, online: Bool, train: [Donation] = train, test: [Donation] = test) async -> EvaluationResult {
        await Evaluation.run(train: train, test: test, model: registry.entry(named: name)!, options: EvaluationOptions(online: online))
    }

    @Test func offlineRanksComeFromTrainingOnly() async {
        let result = await Self.run("mfu", online: false)
        // u1: counts a 2, b 1 -> a rank 1, c unknown twice, b rank 2. u2: x rank 1, y unknown.
        #expect(result.ranks == [1, 1, 0, 0, 0, 2])
        #expect(result.metrics == RankMetrics(ranks: [1, 1, 0, 0, 0, 2]))
        #expect(result.metrics.unranked == 3)
        #expect(result.novelTargets == 2)  // c (first time) and y; the second c was seen in the test log
        let expectedLoss = (-log(2.0 / 3) - log(1.0) - 3 * log(1e-6) - log(1.0 / 3)) / 6
        #expect(abs(result.logLoss - expectedLoss) < 1e-12)
        #expect(result.users == 2 && result.trainingEvents == 4)
    }

    @Test func onlineRanksEachDonationBeforeLearningIt() async {
        let result = await Self.run("mfu", online: true)
        // u1: a (a 2, b 1) -> 1; c is new -> 0, then c 1; c ties b at 1, b first by key -> 3; b after a 3, c 2 -> 3.
        #expect(result.ranks == [1, 1, 0, 3, 0, 3])
        #expect(result.online)
    }

    @Test func recentEventsIncludeTheTrainingTailAndEarlierTestDonations() async {
        // Offline MRU never learns the test log, but each moment's recent events are legitimate context.
        let result = await Self.run("mru", online: false)
        // a: most recent in training is a -> 1; c: unknown to the model and not yet recent -> 0;
        // c again: the previous donation -> 1; b: recent c, then a (training tail), then b -> 3.
        #expect(result.ranks == [1, 1, 0, 1, 0, 3])
    }

    @Test("online, the test donations of one instant are all ranked before any of them is learned")
    func oneInstantRankedTogether() async {
        let train = [donation("a", hours: 1), donation("b", hours: 2)]
        let test = [donation("a", hours: 4), donation("b", hours: 4), donation("a", hours: 5)]
        let result = await Self.run("mru", online: true, train: train, test: test)
        // At 4 h both are ranked as of the instant: b (the latest use before it) 1, a 2; learning a first
        // would rank b second. At 5 h both were used at 4 h (a first by key).
        #expect(result.ranks == [2, 1, 1])
        // Offline the same: the instant's donations are not each other's recent events.
        #expect(await Self.run("mru", online: false, train: train, test: test).ranks == [2, 1, 1])
    }

    @Test func ranksFileRecomputesEveryRankMetric() async throws {
        let result = await Self.run("markov", online: true)
        let text = RanksFile.format(result.ranks)
        #expect(text.split(separator: "\n").count == Self.test.count)
        #expect(try RanksFile.metrics(text) == result.metrics)
    }

    @Test func unfittableUsersAreReportedAndUnranked() async {
        let entry = ModelEntry(FailingTrainer(), summary: "always fails")
        let result = await Evaluation.run(train: Self.train, test: Self.test, model: entry, options: EvaluationOptions(online: true))
        #expect(result.ranks == [0, 0, 0, 0, 0, 0])
        #expect(result.fitFailures == ["u1": "no data", "u2": "no data"])
    }

    @Test func aConfiguredZoneDecidesTheLocalHour() async {
        // Training written at UTC, the test donation at -05:00; the user lives in New York
        // (EST in January), so 12:30 UTC is 07:30 local in both.
        let train = (0..<5).flatMap { day in
            [donation("weather", hours: Double(day) * 24 + 12.5), donation("video", hours: Double(day) * 24 + 1.5),
             donation("video", hours: Double(day) * 24 + 2)]
        }
        let test = [donation("weather", hours: 7 * 24 + 12.4, offset: -5 * 3600)]
        let model = Self.registry.entry(named: "hour-of-day")!
        let written = await Evaluation.run(train: train, test: test, model: model)
        #expect(written.ranks == [2])  // hour 7 (written) was never seen in training (hour 12): backoff to frequency
        let zoned = await Evaluation.run(train: train, test: test, model: model,
                                         options: EvaluationOptions(timeZone: TimeZone(identifier: "America/New_York")!))
        #expect(zoned.ranks == [1])
    }

    @Test func progressReachesTheTotals() async {
        let seen = ProgressLog()
        _ = await Evaluation.run(train: Self.train, test: Self.test, model: Self.registry.entry(named: "mfu")!,
                                 options: EvaluationOptions(progressInterval: 1), progress: { seen.append($0) })
        #expect(seen.values.contains(EvaluationProgress(eventsDone: 6, eventsTotal: 6, usersDone: 2, usersTotal: 2)))
        #expect(seen.values.allSatisfy { $0.eventsDone <= 6 && $0.usersDone <= 2 })
    }

    @Test func parallelEvaluationIsDeterministic() async {
        let log = Simulation(SimulationConfiguration(users: 6, days: 20, seed: 3)).donations()
        let split = LogSplit(log, method: .time, trainShare: 0.25)
        let first = await Self.run("hour-of-day", online: true, train: split.train, test: split.test)
        let second = await Self.run("hour-of-day", online: true, train: split.train, test: split.test)
        #expect(first.ranks == second.ranks && first.probabilities == second.probabilities)
        // Per-user evaluation equals evaluating that user alone.
        let user = split.test[0].user
        let alone = await Self.run("hour-of-day", online: true, train: split.train.filter { $0.user == user },
                                   test: split.test.filter { $0.user == user })
        #expect(alone.ranks == zip(split.test, first.ranks).filter { $0.0.user == user }.map(\.1))
    }

    /// One worker and two give the same ranks and probabilities, for the default model and a baseline,
    /// on a seeded simulated log (sequential, and aggregated rows with counts).
    @Test(arguments: ["blend", "mfu"])
    func oneWorkerAndTwoGiveTheSameRanks(_ name: String) async {
        let sequential = Simulation(SimulationConfiguration(users: 5, days: 14, seed: 5)).donations()
        let aggregated = AggregatedSimulation(AggregatedSimulationConfiguration(users: 5, rowsPerUser: 40, seed: 5)).donations()
        for log in [sequential, aggregated] {
            let split = LogSplit(log, method: .time, trainShare: 0.5)
            var results: [EvaluationResult] = []
            for workers in [1, 2] {
                results.append(await Evaluation.run(train: split.train, test: split.test, model: Self.registry.entry(named: name)!,
                                                    options: EvaluationOptions(online: true, workers: workers)))
            }
            #expect(results[0].ranks.contains { $0 > 0 })
            #expect(results[0].ranks == results[1].ranks)
            #expect(results[0].probabilities == results[1].probabilities)
            #expect(results[0].novelTargets == results[1].novelTargets && results[0].users == 5)
        }
    }

    @Test func theWorkerPoolKeepsInputOrder() async {
        let inputs = Array(0..<50)
        for workers in [1, 2, 7] {
            let order = WorkerPool.largestFirst(inputs.map { ($0 * 37) % 11 })
            #expect(await WorkerPool.map(inputs, workers: workers, order: order) { $0 * $0 } == inputs.map { $0 * $0 })
        }
        #expect(WorkerPool.largestFirst([3, 9, 3, 1]) == [1, 0, 2, 3])
        #expect(await WorkerPool.map([Int](), workers: 2) { $0 }.isEmpty)
    }
}

/// Collects progress reports from concurrent tasks.
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [EvaluationProgress] = []
    func append(_ progress: EvaluationProgress) { lock.lock(); stored.append(progress); lock.unlock() }
    var values: [EvaluationProgress] { lock.lock(); defer { lock.unlock() }; return stored }
}
