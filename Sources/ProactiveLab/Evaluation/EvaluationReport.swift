import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - Reports

/// An evaluation result with what the caller measured around it, ready to
/// print as a table row or write as the JSON report of docs/FORMATS.md.
public struct EvaluationReport: Sendable {
    public var result: EvaluationResult
    /// Wall time of the evaluation, measured by the caller's clock.
    public var wallSeconds: Double
    /// Where the ranks were written, if they were.
    public var ranksFile: String?
    public var trainPath: String?
    public var testPath: String?

    public init(result: EvaluationResult, wallSeconds: Double, ranksFile: String? = nil,
                trainPath: String? = nil, testPath: String? = nil) {
        self.result = result
        self.wallSeconds = wallSeconds
        self.ranksFile = ranksFile
        self.trainPath = trainPath
        self.testPath = testPath
    }

    /// The report object: the contract's `events`, `hit@1`, `hit@4`, `mrr`,
    /// `ranks_file`, then `log_loss`, `log_loss_epsilon`, `unranked`,
    /// `novel_targets`, `model`, `online`, `users`, `training_events`, `wall_seconds`,
    /// `hit_at_k` (hit@1 ... hit@10) and, when the first choices' probabilities
    /// were recorded, `calibration` (`Calibration.bins`).
    public var jsonValue: JSONValue {
        let metrics = result.metrics
        var members: [(String, JSONValue)] = [
            ("events", .number(Double(metrics.events), integer: Int64(metrics.events))),
            ("hit@1", Self.number(metrics.hitAt1)),
            ("hit@4", Self.number(metrics.hitAt4)),
            ("mrr", Self.number(metrics.mrr)),
            ("ranks_file", ranksFile.map(JSONValue.string) ?? .null),
            ("log_loss", Self.number(result.logLoss)),
            ("log_loss_epsilon", Self.number(result.logLossEpsilon)),
            ("unranked", .number(Double(metrics.unranked), integer: Int64(metrics.unranked))),
            ("novel_targets", .number(Double(result.novelTargets), integer: Int64(result.novelTargets))),
            ("model", .string(result.model)),
            ("online", .bool(result.online)),
            ("users", .number(Double(result.users), integer: Int64(result.users))),
            ("training_events", .number(Double(result.trainingEvents), integer: Int64(result.trainingEvents))),
            ("wall_seconds", Self.number(wallSeconds)),
        ]
        members.append(("hit_at_k", .array(hitAtK.map(Self.number))))
        if !calibration.isEmpty {
            members.append(("calibration", .array(calibration.map { bin in
                .object([("from", Self.number(bin.lower)), ("to", Self.number(bin.upper)),
                         ("count", .number(Double(bin.count), integer: Int64(bin.count))),
                         ("mean_predicted", Self.number(bin.meanPredicted)), ("observed", Self.number(bin.observed))])
            })))
        }
        if let trainPath { members.append(("train", .string(trainPath))) }
        if let testPath { members.append(("test", .string(testPath))) }
        if !result.fitFailures.isEmpty {
            members.append(("fit_failures", .object(result.fitFailures.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        }
        return .object(members)
    }

    /// The largest k of `hitAtK`.
    public static let hitCurveLength = 10

    /// hit@k for k = 1 ... `hitCurveLength`, from the ranks.
    public var hitAtK: [Double] {
        (1...Self.hitCurveLength).map { RankMetrics.hitRate(result.ranks, at: $0) }
    }

    /// The calibration of the model's first choice in ten bins, or none when
    /// its probabilities were not recorded (a replay through the engine, `EngineReplay`).
    public var calibration: [Calibration.Bin] {
        guard result.topProbabilities.count == result.ranks.count, result.topProbabilities.contains(where: { $0 > 0 }) else { return [] }
        return Calibration.bins(ranks: result.ranks, topProbabilities: result.topProbabilities)
    }

    /// The JSON text of this report; with `comparison`, a `comparison` array
    /// holds every compared model's report as well.
    public func json(comparison: [EvaluationReport]? = nil) -> String {
        guard let comparison, case var .object(members) = jsonValue else { return JSONWriter.string(jsonValue) }
        members.append(("comparison", .array(comparison.map(\.jsonValue))))
        return JSONWriter.string(.object(members))
    }

    static func number(_ value: Double) -> JSONValue { value.isFinite ? .number(value, integer: nil) : .null }

    // MARK: Table

    /// A Markdown table, one row per report, metrics to three decimals.
    ///
    /// ```
    /// | model | hit@1 | hit@4 | mrr | log-loss | unranked | events | seconds |
    /// ```
    public static func table(_ reports: [EvaluationReport]) -> String {
        var lines = ["| model | hit@1 | hit@4 | mrr | log-loss | unranked | events | seconds |",
                     "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for report in reports {
            let metrics = report.result.metrics
            lines.append("| \(report.result.model) | \(fixed(metrics.hitAt1)) | \(fixed(metrics.hitAt4)) | \(fixed(metrics.mrr)) | "
                + "\(fixed(report.result.logLoss)) | \(metrics.unranked) | \(metrics.events) | \(fixed(report.wallSeconds, digits: 2)) |")
        }
        return lines.joined(separator: "\n")
    }

    /// `value` with `digits` decimals.
    static func fixed(_ value: Double, digits: Int = 3) -> String {
        value.isFinite ? String(format: "%.\(digits)f", value) : "-"
    }
}
