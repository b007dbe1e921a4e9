import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine
import ProactiveLab

// MARK: - proactive split

/// Splits a donation log into a training and a test log, per user.
struct SplitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split",
        abstract: "Split a donation log into training and test logs, per user.",
        discussion: """
            --by time: each user's donations before first + share x (last - first) train, the rest test \
            (chronological). --by count: each user's first share x n donations train. --by random: \
            share x n of each user's donations, chosen with --seed, train (for logs without time order). \
            Both outputs are in date order. A malformed line stops the split and is named FILE:LINE. \
            The summary goes to standard error.

            Example:
              proactive split android.jsonl --by time --train-share 0.25 \\
                --train train.jsonl --test test.jsonl
            """
    )

    enum Method: String, CaseIterable, ExpressibleByArgument {
        case time, count, random
    }

    @Argument(help: "The donation log (JSON Lines) to split.")
    var log: String

    @Option(help: "How to split: time, count or random.")
    var by: Method = .time

    @Option(help: """
        Share of each user's log that trains (0...1): with --by time, a share of the user's time span \
        (first to last donation), not of their donations; with count or random, a share of their donations.
        """)
    var trainShare: Double = 0.25

    @Option(help: "Seed for --by random.")
    var seed: UInt64?

    @Option(help: "Where to write the training log.")
    var train: String

    @Option(help: "Where to write the test log.")
    var test: String

    func validate() throws {
        guard trainShare >= 0, trainShare <= 1 else { throw ValidationError("--train-share must be between 0 and 1, found \(trainShare)") }
        if by == .random, seed == nil { throw ValidationError("--by random needs --seed N (the split must be reproducible)") }
        if by != .random, seed != nil { throw ValidationError("--seed only applies to --by random") }
    }

    func run() throws {
        let donations = try loadDonationLog(log)
        let method: SplitMethod = switch by {
        case .time: .time
        case .count: .count
        case .random: .random(seed: seed!)
        }
        let split = LogSplit(donations, method: method, trainShare: trainShare)
        for (path, part) in [(train, split.train), (test, split.test)] {
            let writer = try openLogWriter(path)
            for donation in part { try writer.write(donation) }
            try writer.close()
        }
        let users = Set(donations.map(\.user)).count
        printError("split \(donations.count) donations of \(users) user\(users == 1 ? "" : "s") by \(by.rawValue): \(split.train.count) train -> \(train), \(split.test.count) test -> \(test)")
    }
}
