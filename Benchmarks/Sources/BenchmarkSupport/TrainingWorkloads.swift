import Dispatch
import Foundation
import ProactiveCore
import ProactiveLab
import ProactiveModels

// MARK: - The single-user training problem

/// The training benchmark's data: one synthetic user with 100,000 donations
/// over 200 targets (a year), the same for the logistic and profile models
/// and for the Python peer (`export`).
public struct TrainingProblem: Sendable {
    public static let donations = 100_000
    public static let targets = 200

    public let user: SyntheticUser
    public let training: TrainingSet

    public init(donations: Int = TrainingProblem.donations, targets: Int = TrainingProblem.targets, seed: UInt64 = 3) {
        user = SyntheticUser(targets: targets, seed: seed)
        training = TrainingSet(events: user.events(count: donations, days: 365), targets: user.targetsByKey)
    }

    // MARK: Export for the peer

    /// Writes the fitted model's design matrix and weights for the Python peer, little-endian:
    ///
    /// - `X.f32`: rows x (columns - 1) Float32, row-major: the encoded events without the bias column
    ///   (the peer fits the intercept itself, unpenalised like the engine's bias);
    /// - `y.i32`: rows Int32 labels (target indices);
    /// - `W.f64`: targets x columns Float64, the engine's weights (column 0 is the bias).
    ///
    /// - Returns: (rows, columns) of the full design matrix.
    @discardableResult
    public static func export(_ model: LogisticModel, to directory: URL) throws -> (rows: Int, columns: Int) {
        let design = DesignMatrix(log: model.log, space: model.space, encoder: model.encoder, halfLifeDays: nil)
        precondition(design.weights.allSatisfy { $0 == 1 }, "the export assumes unit event weights")
        var features = [Float]()
        features.reserveCapacity(design.rows * (design.columns - 1))
        for i in 0 ..< design.rows {
            features.append(contentsOf: design.row(i).dropFirst())  // full width, without the bias column
        }
        try write(features, to: directory.appendingPathComponent("X.f32"))
        try write(design.labels.map { Int32($0) }, to: directory.appendingPathComponent("y.i32"))
        try write(model.expandedWeights, to: directory.appendingPathComponent("W.f64"))
        return (design.rows, design.columns)
    }

    static func write<T>(_ values: [T], to url: URL) throws {
        let data = values.withUnsafeBufferPointer { Data(buffer: $0) }
        try data.write(to: url)
    }
}

// MARK: - A simulated population

/// 1,000 simulated users (the routine simulator) with their first 1,000
/// donations each, for the default model's fitting throughput.
public struct SimulatedPopulation: Sendable {
    public let trainingSets: [TrainingSet]

    /// - Parameters: users and donations per user; 75 simulated days give
    ///   about 1,100 donations a user, cut to `donationsPerUser`.
    public init(users: Int = 1_000, donationsPerUser: Int = 1_000, days: Int = 75, seed: UInt64 = 5) {
        let simulation = Simulation(SimulationConfiguration(users: users, days: days, seed: seed))
        let resolver = TargetResolver()
        trainingSets = simulation.personas.enumerated().map { index, persona in
            let donations = simulation.donations(for: persona, index: index).prefix(donationsPerUser)
            return TrainingSet(donations: Array(donations), resolver: resolver)
        }
    }

    public var donationCount: Int { trainingSets.reduce(0) { $0 + $1.events.count } }

    /// Fits `fit` for every user on all cores (`DispatchQueue.concurrentPerform`).
    /// - Returns: the number of users whose fit threw.
    public func fitAll<Model>(_ fit: @Sendable (TrainingSet) throws -> Model) -> Int {
        let failures = FailureCounter()
        DispatchQueue.concurrentPerform(iterations: trainingSets.count) { index in
            do {
                _ = try fit(trainingSets[index])
            } catch {
                failures.add()
            }
        }
        return failures.count
    }
}

/// A thread-safe counter.
final class FailureCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add() { lock.lock(); value += 1; lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return value }
}
