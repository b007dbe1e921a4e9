import Foundation
import ProactiveCore

// MARK: - Events, moments and scores

/// One donation as a learning event: which target happened, when, where.
public struct Event: Sendable, Hashable {
    public var target: TargetKey
    public var date: Date
    /// The offset the donation was written in (see `LocalClock`).
    public var utcOffset: Int?
    public var context: [String: String]
    /// How many identical donations this event stands for (a donation's `count`).
    public var weight: Double

    public init(target: TargetKey, date: Date, utcOffset: Int? = nil, context: [String: String] = [:], weight: Double = 1) {
        self.target = target
        self.date = date
        self.utcOffset = utcOffset
        self.context = context
        self.weight = weight
    }
}

extension Collection {
    /// The runs of consecutive elements at one instant (equal `date(element)`), as index ranges in
    /// order, covering the collection. Events at one instant happened together, in no order: learning
    /// scores every event of a run before it learns any of them (`FittedModel.update(with:)` for a batch,
    /// `BlendTrainer.walk`), and an evaluation ranks them all before learning one.
    ///
    /// ```swift
    /// events.instantRuns(date: \.date)   // dates 9:00, 9:00, 9:05 -> [0 ..< 2, 2 ..< 3]
    /// ```
    package func instantRuns(date: (Element) -> Date) -> [Range<Index>] {
        var runs: [Range<Index>] = []
        var start = startIndex
        while start != endIndex {
            let instant = date(self[start])
            var end = index(after: start)
            while end != endIndex, date(self[end]) == instant { end = index(after: end) }
            runs.append(start ..< end)
            start = end
        }
        return runs
    }
}

/// The situation a prediction is made for: an instant, its context, and what
/// the user did just before (most recent last).
public struct Moment: Sendable, Hashable {
    public var date: Date
    public var utcOffset: Int?
    public var context: [String: String]
    /// Recent events of this user before `date`, oldest first (a short tail is enough).
    public var recent: [Event]
    /// Whether the question is about `date` as it stood then: a model that learned donations after
    /// `date` answers from those at or before it only (the default model, `BlendModel`; other models
    /// ignore it). The engine asks so (`Engine.moment(for:at:)`); an offline evaluation's held-out rows
    /// do not, since a log split at random holds training rows after a test row that are not its future.
    ///
    ///     Moment(date: lastTuesdayNine, asOfItsDate: true)   // what Tuesday 21:00 looked like then
    public var asOfItsDate: Bool

    public init(date: Date, utcOffset: Int? = nil, context: [String: String] = [:], recent: [Event] = [],
                asOfItsDate: Bool = false) {
        self.date = date
        self.utcOffset = utcOffset
        self.context = context
        self.recent = recent
        self.asOfItsDate = asOfItsDate
    }
}

/// A target with the model's probability that it is the one wanted now.
public struct ScoredTarget: Sendable, Hashable {
    public var target: TargetKey
    public var probability: Double
    public init(target: TargetKey, probability: Double) {
        self.target = target
        self.probability = probability
    }
}

/// One user's chronological training events plus the targets they refer to.
public struct TrainingSet: Sendable {
    /// Sorted by date (stable for equal dates).
    public var events: [Event]
    public var targets: [TargetKey: Target]

    public init(events: [Event], targets: [TargetKey: Target] = [:]) {
        self.events = events.enumerated().sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }.map(\.element)
        self.targets = targets
    }

    /// Builds a training set from donations, resolving targets.
    public init(donations: [Donation], resolver: TargetResolver) {
        var targets: [TargetKey: Target] = [:]
        var events: [Event] = []
        events.reserveCapacity(donations.count)
        for donation in donations {
            let target = resolver.target(for: donation)
            targets[target.key] = target
            events.append(Event(target: target.key, date: donation.date, utcOffset: donation.utcOffset,
                                context: donation.context, weight: Double(donation.count)))
        }
        self.init(events: events, targets: targets)
    }
}

// MARK: - The model protocol

/// A fitted per-user model. Fitting returns one, so "unfitted" cannot be represented.
public protocol FittedModel: Sendable {
    /// A stable name (`profile`, `logistic`, `blend`, `mfu`, ...).
    var name: String { get }
    /// Every known target with its probability at `moment`, highest first
    /// (ties broken by target key so results are deterministic). Probabilities sum to 1
    /// when the model has at least one target.
    func scores(at moment: Moment) -> [ScoredTarget]
    /// The same probabilities in the model's target order, unsorted: what hot
    /// paths use (top-k selection and lookups by key, no O(n log n) sort).
    func distribution(at moment: Moment) -> TargetDistribution
    /// Learns from one more event (online / prequential use).
    mutating func update(with event: Event)
    /// Learns `events` (in time order) as `update(with:)` would one by one, except that the events of one
    /// instant (`instantRuns`) are taken together: a model that records what it would have predicted
    /// for each event (the blend's rows) records them all before learning any. The default learns one
    /// by one (models that keep no such record learn the same either way).
    mutating func update(with events: [Event])
    /// `scores(at:)` for many moments at once (models may batch the work, e.g. one gemm);
    /// agrees with scoring each moment alone up to rounding.
    func scores(at moments: [Moment]) -> [[ScoredTarget]]
    /// How likely the user is to act at all at `moment` (0...1; 1 at usual times), when the
    /// model knows; nil when it does not (ranking then takes the user as active).
    func activityLevel(at moment: Moment) -> Double?
}

extension FittedModel {
    public mutating func update(with events: [Event]) {
        for event in events { update(with: event) }
    }
    public func activityLevel(at moment: Moment) -> Double? { nil }
    public func scores(at moments: [Moment]) -> [[ScoredTarget]] { moments.map { scores(at: $0) } }
    /// Built from `scores(at:)` (O(n) to index); models with a target space override it.
    public func distribution(at moment: Moment) -> TargetDistribution { TargetDistribution(ranked: scores(at: moment)) }
}

/// Hyperparameters plus the fitting procedure of one kind of model.
package protocol ModelTrainer: Sendable {
    associatedtype Model: FittedModel
    var name: String { get }
    func fit(_ training: TrainingSet) throws -> Model
}
