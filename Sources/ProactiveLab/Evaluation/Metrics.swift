import Foundation
import ProactiveModels

// MARK: - Rank metrics (docs/FORMATS.md evaluation contract)

/// Metrics computed from ranks alone, exactly as docs/FORMATS.md defines them, so
/// anyone holding a ranks file gets the same numbers.
///
/// - `hit@k`: share of test donations whose rank is in 1...k.
/// - `mrr`: mean of 1/rank, with 0 for an unranked donation (rank 0).
///
/// ```swift
/// let metrics = RankMetrics(ranks: [1, 3, 0, 2])   // hit@1 0.25, hit@4 0.75, mrr (1 + 1/3 + 1/2) / 4
/// ```
public struct RankMetrics: Sendable, Equatable {
    /// Test donations scored.
    public var events: Int
    public var hitAt1: Double
    public var hitAt4: Double
    public var mrr: Double
    /// Donations whose target the model did not rank (rank 0).
    public var unranked: Int

    /// - Precondition: every rank is >= 0.
    public init(ranks: [Int]) {
        var hits1 = 0, hits4 = 0, unranked = 0
        var reciprocal = 0.0
        for rank in ranks {
            precondition(rank >= 0, "a rank is 1-based, or 0 for unranked")
            if rank == 0 { unranked += 1; continue }
            if rank == 1 { hits1 += 1 }
            if rank <= 4 { hits4 += 1 }
            reciprocal += 1 / Double(rank)
        }
        let count = Double(max(ranks.count, 1))
        events = ranks.count
        hitAt1 = Double(hits1) / count
        hitAt4 = Double(hits4) / count
        mrr = reciprocal / count
        self.unranked = unranked
    }

    /// hit@k for any k >= 1.
    public static func hitRate(_ ranks: [Int], at k: Int) -> Double {
        guard !ranks.isEmpty else { return 0 }
        return Double(ranks.count { $0 >= 1 && $0 <= k }) / Double(ranks.count)
    }
}

// MARK: - Ranks files

/// A ranks file: one line per test donation, in test-log order, holding the
/// 1-based rank of its true target (0 = not ranked).
public enum RanksFile {
    /// A line that is not a rank.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    /// The file's text: each rank on its own line, with a final newline.
    public static func format(_ ranks: [Int]) -> String {
        var text = ""
        text.reserveCapacity(ranks.count * 3)
        for rank in ranks {
            text += String(rank)
            text += "\n"
        }
        return text
    }

    /// Parses a ranks file. Blank lines are ignored (a trailing newline, CRLF endings).
    ///
    /// - Throws: `ParseError` naming the first line that is not a non-negative integer.
    public static func parse(_ text: String) throws(ParseError) -> [Int] {
        var ranks: [Int] = []
        // `\r\n` is one Character (a newline), so CRLF files split the same way.
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            guard let rank = Int(line), rank >= 0 else {
                throw ParseError(line: index + 1, reason: "\"\(line.prefix(40))\" is not a rank (an integer >= 0)")
            }
            ranks.append(rank)
        }
        return ranks
    }

    /// Recomputes every rank metric from a ranks file alone.
    public static func metrics(_ text: String) throws(ParseError) -> RankMetrics {
        RankMetrics(ranks: try parse(text))
    }
}

// MARK: - Log-loss

/// Mean negative log-probability of the true targets.
///
/// Each probability is floored at `epsilon` before the logarithm, so an
/// unranked target (probability 0) costs −ln(epsilon) (≈ 13.8 for 1e-6)
/// instead of infinity. Natural logarithm (nats).
public enum LogLoss {
    public static let defaultEpsilon = 1e-6

    public static func mean(_ probabilities: [Double], epsilon: Double = defaultEpsilon) -> Double {
        guard !probabilities.isEmpty else { return 0 }
        var sum = 0.0
        for probability in probabilities { sum -= log(max(probability, epsilon)) }
        return sum / Double(probabilities.count)
    }
}
