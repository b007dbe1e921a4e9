import Foundation
import ProactiveCore
@testable import ProactiveLab
@testable import ProactiveModels
import Testing

@Suite("Rank metrics and ranks files")
struct MetricsTests {
    @Test func metricsFollowTheContract() {
        let metrics = RankMetrics(ranks: [1, 3, 0, 2, 5])
        #expect(metrics.events == 5 && metrics.unranked == 1)
        #expect(metrics.hitAt1 == 0.2)
        #expect(metrics.hitAt4 == 0.6)
        #expect(abs(metrics.mrr - (1 + 1.0 / 3 + 0.5 + 0.2) / 5) < 1e-15)
        #expect(RankMetrics.hitRate([1, 3, 0, 2, 5], at: 5) == 0.8)
        #expect(RankMetrics(ranks: []).events == 0 && RankMetrics(ranks: []).mrr == 0)
    }

    @Test func ranksFilesRoundTripAndBadLinesAreNamed() throws {
        #expect(RanksFile.format([1, 0, 12]) == "1\n0\n12\n")
        #expect(try RanksFile.parse("1\r\n0\n12\n\n") == [1, 0, 12])
        #expect(throws: RanksFile.ParseError(line: 2, reason: "\"-1\" is not a rank (an integer >= 0)")) { try RanksFile.parse("3\n-1\n") }
        #expect(throws: RanksFile.ParseError.self) { try RanksFile.parse("1\n2.5\n") }
    }

    @Test func logLossFloorsZeroProbabilities() {
        #expect(abs(LogLoss.mean([1, 0], epsilon: 1e-6) - (-log(1e-6) / 2)) < 1e-12)
        #expect(LogLoss.mean([]) == 0)
    }

    @Test func reportHasTheContractFields() throws {
        let result = EvaluationResult(model: "mfu", online: true, ranks: [1, 0], probabilities: [0.5, 0],
                                      metrics: RankMetrics(ranks: [1, 0]), logLoss: 1.5, logLossEpsilon: 1e-6,
                                      novelTargets: 1, users: 1, trainingEvents: 3, fitFailures: [:])
        let json = try JSONParser.parse(EvaluationReport(result: result, wallSeconds: 0.25, ranksFile: "r.txt").json())
        #expect(json["events"] == .number(2, integer: 2))
        #expect(json["hit@1"] == .number(0.5, integer: nil))
        #expect(json["hit@4"] == .number(0.5, integer: nil))
        #expect(json["mrr"] == .number(0.5, integer: nil))
        #expect(json["ranks_file"] == .string("r.txt"))
        #expect(json["log_loss"] == .number(1.5, integer: nil))
        #expect(json["unranked"] == .number(1, integer: 1))
        #expect(json["model"] == .string("mfu"))
        #expect(json["wall_seconds"] == .number(0.25, integer: nil))
        #expect(EvaluationReport.table([EvaluationReport(result: result, wallSeconds: 0.25)]).contains("| mfu | 0.500 | 0.500 | 0.500 | 1.500 | 1 | 2 | 0.25 |"))
        #expect(json["hit_at_k"] == .array(Array(repeating: .number(0.5, integer: nil), count: 10)))
        #expect(json["calibration"] == nil)  // no first-choice probabilities recorded
    }

    @Test func hitCurveAndCalibrationComeFromTheRanksAndFirstChoices() throws {
        let ranks = [1, 2, 1, 0, 7, 1]
        let result = EvaluationResult(model: "m", online: false, ranks: ranks, probabilities: [0.85, 0.1, 0.15, 0, 0.01, 0.95],
                                      topProbabilities: [0.85, 0.8, 0.15, 0, 0.5, 0.95],
                                      metrics: RankMetrics(ranks: ranks), logLoss: 1, logLossEpsilon: 1e-6,
                                      novelTargets: 0, users: 1, trainingEvents: 1, fitFailures: [:])
        let report = EvaluationReport(result: result, wallSeconds: 0)
        #expect(report.hitAtK.count == 10)
        #expect(report.hitAtK[0] == 0.5 && report.hitAtK[1] == 4.0 / 6 && report.hitAtK[6] == 5.0 / 6 && report.hitAtK[9] == 5.0 / 6)
        let bins = report.calibration
        #expect(bins.count == 10 && bins.map(\.count).reduce(0, +) == 5)  // the unranked donation (first choice 0) is left out
        #expect(bins[8].count == 2 && abs(bins[8].meanPredicted - 0.825) < 1e-12 && bins[8].observed == 0.5)
        #expect(bins[9].count == 1 && bins[9].observed == 1 && bins[5].count == 1 && bins[5].observed == 0)
        #expect(bins[1].count == 1 && bins[1].observed == 1 && bins[0].count == 0 && bins[0].meanPredicted == 0)
        let json = try JSONParser.parse(report.json())
        guard case let .array(calibration)? = json["calibration"] else { Issue.record("no calibration"); return }
        #expect(calibration[8]["count"] == .number(2, integer: 2) && calibration[8]["observed"] == .number(0.5, integer: nil))
    }
}

@Suite("Train/test splits")
struct LogSplitTests {
    /// u1 at hours 0...10, u2 at hours 100...104, interleaved out of order.
    static let log = (0...10).map { donation("a\($0)", hours: Double($0)) } + (100...104).map { donation("b\($0)", hours: Double($0), user: "u2") }

    @Test func byTimeCutsEachUsersSpan() {
        let split = LogSplit(Self.log.reversed(), method: .time, trainShare: 0.25)
        // u1 span 0...10: before 2.5 h -> 0, 1, 2; u2 span 100...104: before 101 h -> 100.
        #expect(split.train.map(\.app) == ["a0", "a1", "a2", "b100"])
        #expect(split.test.count == 12)
        #expect(zip(split.test, split.test.dropFirst()).allSatisfy { $0.date <= $1.date })
        #expect(LogSplit(Self.log, method: .time, trainShare: 1).test.isEmpty)
        #expect(LogSplit(Self.log, method: .time, trainShare: 0).train.isEmpty)
    }

    @Test func byCountTakesEachUsersFirstShare() {
        let split = LogSplit(Self.log, method: .count, trainShare: 0.5)
        #expect(split.train.map(\.app) == ["a0", "a1", "a2", "a3", "a4", "b100", "b101"])
    }

    @Test func randomSplitsAreReproduciblePerSeed() {
        let first = LogSplit(Self.log, method: .random(seed: 9), trainShare: 0.5)
        let again = LogSplit(Self.log, method: .random(seed: 9), trainShare: 0.5)
        let other = LogSplit(Self.log, method: .random(seed: 10), trainShare: 0.5)
        #expect(first.train == again.train && first.test == again.test)
        #expect(first.train.count == 7 && first.test.count == 9)
        #expect(Set(first.train.map(\.app)) != Set(other.train.map(\.app)))
        #expect(Set((first.train + first.test).map(\.app)) == Set(Self.log.map(\.app)))
    }
}
