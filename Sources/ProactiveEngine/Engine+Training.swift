import Foundation
import ProactiveModels

// MARK: - Training many users in parallel

extension Engine {
    /// One user's model as `train(users:_:concurrency:populationPrior:now:progress:)` fitted and saved it.
    public struct TrainedUser: Sendable {
        public var user: String
        public var live: LiveModel
        /// How long fitting and saving took, in seconds.
        public var seconds: Double
        /// What the blend's weights were checked against on held-out rows (`train --report`); nil for a model
        /// without blend weights.
        public var weightGuard: WeightGuard? { (live.model as? BlendModel)?.weightGuard }
    }

    /// What training reports while it runs, in order: every user's walk (`walked`), the prior once
    /// (`prior`, nil when the users are fitted toward their saved priors), then every user's fit (`fitted`).
    public enum TrainingProgress: Sendable {
        /// A user's walk ended (`failure` says why it could not be walked); `done` of `total` so far.
        case walked(user: String, done: Int, total: Int, failure: String?)
        /// The walks are over; fitting starts toward this prior.
        case prior(BlendTrainer.Prior?)
        /// A user's fit ended, with the model saved or why it failed; `done` of `total` so far.
        case fitted(user: String, done: Int, total: Int, result: Result<TrainedUser, EngineError>)
    }

    /// What training did: the users fitted and saved, sorted by user, and the failures in the order they happened.
    public struct TrainingRun: Sendable {
        public var trained: [TrainedUser] = []
        public var failures: [String] = []
    }

    /// Trains `users` at most `concurrency` at a time: walks every user (pass 1), learns the
    /// population prior from their walks when `populationPrior` (else each user keeps the prior of
    /// their saved state), then fits and saves each user toward it (pass 2). A user that fails is
    /// reported and skipped; the others are trained.
    /// - Parameters:
    ///   - concurrency: at most this many users at once (at least 1).
    ///   - progress: told about each walk, the prior and each fit, from the calling task, in order.
    /// - Returns: the trained users and the failures (`EngineError` descriptions, each naming the user).
    ///
    /// ```swift
    /// let run = await engine.train(users: ["a", "b"], concurrency: 2) { event in
    ///     if case let .fitted(user, done, total, _) = event { print("\(done)/\(total) \(user)") }
    /// }
    /// ```
    public func train(users: [String], _ choice: ModelChoice = ModelChoice(), concurrency: Int, populationPrior: Bool = true,
                      now: Date = Date(), progress: (TrainingProgress) -> Void = { _ in }) async -> TrainingRun {
        var run = TrainingRun()
        let walked = await Self.parallel(users, concurrency: concurrency, user: { $0 }) { user in
            try prepareTraining(user: user, choice).releasingDonations()
        } progress: { user, done, result in
            if case let .failure(error) = result { run.failures.append(error.description) }
            progress(.walked(user: user, done: done, total: users.count, failure: result.failure?.description))
        }
        var prepared = walked.sorted { $0.user < $1.user }
        let prior = populationPrior ? Self.population(of: &prepared) : nil
        progress(.prior(prior))
        let clock = ContinuousClock()
        let fitted = await Self.parallel(prepared, concurrency: concurrency, user: \.user) { training in
            let started = clock.now
            let live = try finishTraining(training, prior: prior ?? savedPrior(user: training.user, training.choice), now: now)
            return TrainedUser(user: training.user, live: live, seconds: (clock.now - started) / .seconds(1))
        } progress: { training, done, result in
            if case let .failure(error) = result { run.failures.append(error.description) }
            progress(.fitted(user: training.user, done: done, total: prepared.count, result: result))
        }
        run.trained = fitted.sorted { $0.user < $1.user }
        return run
    }

    /// `work` on every item, at most `concurrency` at once; `progress` is told each result as it comes, in order
    /// of completion (a non-`EngineError` failure becomes one naming the item's `user`).
    static func parallel<Item: Sendable, Output: Sendable>(
        _ items: [Item], concurrency: Int, user: @escaping @Sendable (Item) -> String, _ work: @escaping @Sendable (Item) throws -> Output,
        progress: (Item, Int, Result<Output, EngineError>) -> Void
    ) async -> [Output] {
        var outputs: [Output] = []
        await withTaskGroup(of: (Item, Result<Output, EngineError>).self) { group in
            var pending = items[...]
            func startNext() {
                guard let next = pending.popFirst() else { return }
                group.addTask {
                    do { return (next, .success(try work(next))) } catch let error as EngineError { return (next, .failure(error)) } catch {
                        return (next, .failure(EngineError(.fitFailed, "user \(user(next)): \(error)")))
                    }
                }
            }
            for _ in 0 ..< max(1, min(concurrency, items.count)) { startNext() }
            var done = 0
            for await (item, result) in group {
                done += 1
                if case let .success(output) = result { outputs.append(output) }
                progress(item, done, result)
                startNext()
            }
        }
        return outputs
    }
}

extension Result {
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
