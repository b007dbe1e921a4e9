import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - Train/test splits

/// How a log is divided into a training and a test part, per user.
public enum SplitMethod: Sendable, Hashable {
    /// Chronological by time: a user's donations before
    /// `first + share × (last − first)` train, the rest test.
    case time
    /// Chronological by count: a user's first ⌊share × n⌋ donations train.
    case count
    /// Each user's donations shuffled with `seed`; ⌊share × n⌋ of them train
    /// (for logs without a meaningful time order).
    case random(seed: UInt64)
}

/// A log divided into training and test donations.
///
/// Both parts keep the input's relative order, sorted by date (stable for
/// equal dates), so the test part can be walked as a time line.
///
/// ```swift
/// let split = LogSplit(donations, method: .time, trainShare: 0.25)
/// ```
public struct LogSplit: Sendable {
    public var train: [Donation]
    public var test: [Donation]

    /// - Precondition: `trainShare` is in 0...1.
    public init(_ donations: [Donation], method: SplitMethod, trainShare: Double) {
        precondition((0...1).contains(trainShare), "the train share must be between 0 and 1")
        var indicesByUser: [String: [Int]] = [:]
        for (index, donation) in donations.enumerated() { indicesByUser[donation.user, default: []].append(index) }
        var isTrain = [Bool](repeating: false, count: donations.count)
        for (userOrder, user) in indicesByUser.keys.sorted().enumerated() {
            let chronological = Self.chronological(indicesByUser[user]!, donations)
            switch method {
            case .time:
                guard let first = chronological.first.map({ donations[$0].date }),
                      let last = chronological.last.map({ donations[$0].date }) else { continue }
                let cut = first.addingTimeInterval(trainShare * last.timeIntervalSince(first))
                for index in chronological where donations[index].date < cut { isTrain[index] = true }
                // A share of 1 keeps everything for training, including the last instant.
                if trainShare == 1 { for index in chronological { isTrain[index] = true } }
            case .count:
                let trainCount = Int((trainShare * Double(chronological.count)).rounded(.down))
                for index in chronological.prefix(trainCount) { isTrain[index] = true }
            case let .random(seed):
                var random = SeededGenerator.derived(seed: seed, UInt64(userOrder))
                var shuffled = chronological
                // Fisher-Yates with the portable generator.
                for position in stride(from: shuffled.count - 1, to: 0, by: -1) {
                    shuffled.swapAt(position, random.integer(in: 0...position))
                }
                let trainCount = Int((trainShare * Double(shuffled.count)).rounded(.down))
                for index in shuffled.prefix(trainCount) { isTrain[index] = true }
            }
        }
        let ordered = Self.chronological(Array(donations.indices), donations)
        train = ordered.filter { isTrain[$0] }.map { donations[$0] }
        test = ordered.filter { !isTrain[$0] }.map { donations[$0] }
    }

    /// Indices sorted by date, stable for equal dates.
    static func chronological(_ indices: [Int], _ donations: [Donation]) -> [Int] {
        indices.sorted { donations[$0].date != donations[$1].date ? donations[$0].date < donations[$1].date : $0 < $1 }
    }
}
