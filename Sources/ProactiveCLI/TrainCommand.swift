import ArgumentParser
import Foundation
import LinearAlgebra
import ProactiveCore
import ProactiveEngine
import ProactiveModels
import ProactiveStore

// MARK: - proactive train

/// Fits and saves per-user models in the store.
struct TrainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "train",
        abstract: "Fit each user's model from scratch on their donations and save it as the user's live state.",
        discussion: """
            Trains every user (or only --user) in parallel, one user per core, and saves each as the user's \
            live model state (versioned binary with a checksum, replaced atomically). Train once: afterwards \
            `donate`, `import` and `delete` keep the state current (queries fold in new donations and unlearn \
            deleted ones), so training again is only needed to refit from scratch. The retention policy is \
            applied first (proactive retention), so no model learns from expired donations.

            The default blend trains in two passes: every user's history is walked first, and the blend \
            weights of all users together become the population prior; then each user's own weights are \
            fitted, pulled toward that prior, and guarded by the user's most recent rows held out (a \
            simpler model replaces what does not earn its weight there). --report prints per user what \
            the guard kept. Training one user (--user) keeps the prior of that user's saved state.

            Models: \(ModelChoice.names.joined(separator: ", ")) (default \(ModelChoice.defaultName)). \
            Each user's configured time zone (or --timezone) decides their local clock.

            Example:
              proactive train --store proactive.sqlite
              proactive train --user u1 --model profile
              proactive train --report
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Train only this user.")
    var user: String?

    @OptionGroup var modelOptions: ModelChoiceOptions

    @Option(help: "Users trained at once (default: the number of cores).")
    var jobs: Int?

    @Flag(help: "No progress on standard error.")
    var quiet = false

    @Flag(help: "Print the summary as JSON: one entry per user (donations, targets, seconds, bytes, guard) and the failures.")
    var json = false

    @Flag(help: "Print per user what earned weight: the prior, the simpler model the weights were shrunk toward, the share kept and the held-out scores.")
    var report = false

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
    }

    /// What happened to one user.
    struct Outcome: Sendable {
        var user: String
        var donations: Int
        var targets: Int
        var seconds: Double
        var bytes: Int
        /// The blend's guard, if the model has one.
        var weightGuard: WeightGuard?
    }

    func run() async throws {
        let engine = try modelOptions.engine(storeOptions)
        let database = engine.database
        try RecordingPolicy.applyRetention(engine, now: Date())  // never learn from what has expired
        let users = try user.map { [$0] } ?? SQLiteDonationStore(database: database).users()
        guard !users.isEmpty else { throw CommandFailure(description: "no users with donations in \(storeOptions.path)") }
        BLAS.setThreadCount(1)  // parallel over users instead
        let width = min(jobs ?? ProcessInfo.processInfo.activeProcessorCount, users.count)
        let (name, choice) = (modelOptions.model, modelOptions.choice)
        let clock = ContinuousClock()
        let started = clock.now
        var done = 0
        var failures: [String] = []
        var outcomes: [Outcome] = []
        // Pass 1: walk every user (the blend's rows teach the population prior); only each user's sample
        // is kept, the donations are read again in pass 2.
        var prepared: [Engine.UserTraining] = []
        try await withThrowingTaskGroup(of: Result<Engine.UserTraining, CommandFailure>.self) { group in
            var pending = users[...]
            func startNext() {
                guard let next = pending.popFirst() else { return }
                group.addTask {
                    do { return .success(try engine.prepareTraining(user: next, choice).releasingDonations()) }
                    catch let failure as EngineError { return .failure(CommandFailure(description: failure.description)) }
                    catch { return .failure(CommandFailure(description: "user \(next): \(error)")) }
                }
            }
            for _ in 0 ..< width { startNext() }
            for try await result in group {
                done += 1
                switch result {
                case let .success(training): prepared.append(training)
                case let .failure(failure):
                    failures.append(failure.description)
                    printError("[\(done)/\(users.count)] \(failure.description)")
                }
                if !quiet, users.count > 1, done % max(1, users.count / 20) == 0 || done == users.count {
                    printError("walked \(done)/\(users.count) users"
                               + ProgressPrinter.rateAndTimeLeft(done: done, total: users.count, seconds: Self.seconds(clock.now - started))
                                   .replacingOccurrences(of: "/s", with: " users/s"))
                }
                startNext()
            }
        }
        prepared.sort { $0.user < $1.user }
        let prior = prepared.count > 1 || user == nil ? Engine.population(of: &prepared) : nil
        if !quiet, let prior { printError("prior: \(prior.name)") }
        // Pass 2: fit each user toward the prior and save.
        done = 0
        let phaseStart = clock.now
        try await withThrowingTaskGroup(of: Result<Outcome, CommandFailure>.self) { group in
            var pending = prepared[...]
            func startNext() {
                guard let next = pending.popFirst() else { return }
                group.addTask {
                    do { return .success(try Self.finish(next, prior: prior, engine: engine)) }
                    catch let failure as CommandFailure { return .failure(failure) }
                    catch let failure as EngineError { return .failure(CommandFailure(description: failure.description)) }
                    catch { return .failure(CommandFailure(description: "user \(next.user): \(error)")) }
                }
            }
            for _ in 0 ..< width { startNext() }
            for try await result in group {
                done += 1
                switch result {
                case let .success(outcome):
                    outcomes.append(outcome)
                    if !quiet {
                        printError(String(format: "[%d/%d] user %@: %d donations, %d targets, %.2f s, %d bytes", done, prepared.count,
                                          outcome.user, outcome.donations, outcome.targets, outcome.seconds, outcome.bytes)
                                   + ProgressPrinter.rateAndTimeLeft(done: done, total: prepared.count,
                                                                     seconds: Self.seconds(clock.now - phaseStart))
                                       .replacingOccurrences(of: "/s", with: " users/s"))
                    }
                case let .failure(failure):
                    failures.append(failure.description)
                    printError("[\(done)/\(prepared.count)] \(failure.description)")
                }
                startNext()
            }
        }
        if report, !json {
            for outcome in outcomes.sorted(by: { $0.user < $1.user }) {
                print("\(outcome.user): \(outcome.weightGuard?.summary ?? "no guard (\(name) has no blend weights)")")
            }
        }
        let seconds = Self.seconds(clock.now - started)
        if json {
            func number(_ value: Double) -> JSONValue { .number(value, integer: nil) }
            func count(_ value: Int) -> JSONValue { .number(Double(value), integer: Int64(value)) }
            print(JSONWriter.string(.object([
                ("model", .string(name)), ("seconds", number(seconds)),
                ("users", .array(outcomes.sorted { $0.user < $1.user }.map { outcome in
                    .object([("user", .string(outcome.user)), ("donations", count(outcome.donations)), ("targets", count(outcome.targets)),
                             ("seconds", number(outcome.seconds)), ("bytes", count(outcome.bytes)),
                             ("guard", outcome.weightGuard.map { Self.json($0) } ?? .null)])
                })),
                ("failures", .array(failures.map(JSONValue.string))),
            ])))
        } else {
            print(String(format: "trained %d of %d users (%@) in %.2f s", users.count - failures.count, users.count, name, seconds))
        }
        if !failures.isEmpty { throw ExitCode.failure }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Fits and saves one prepared user's model (runs in a task of its own); with no prior
    /// (one user trained alone) the prior of the user's saved state.
    static func finish(_ training: Engine.UserTraining, prior: BlendTrainer.Prior?, engine: Engine) throws -> Outcome {
        let clock = ContinuousClock()
        let started = clock.now
        let live = try engine.finishTraining(training, prior: prior ?? engine.savedPrior(user: training.user, training.choice))
        return Outcome(user: training.user, donations: live.key.donationCount, targets: live.targets.count,
                       seconds: seconds(clock.now - started), bytes: live.savedBytes ?? 0,
                       weightGuard: (live.model as? BlendModel)?.weightGuard)
    }

    /// The guard as JSON: prior, anchor, share and the held-out scores.
    static func json(_ weightGuard: WeightGuard) -> JSONValue {
        func number(_ value: Double) -> JSONValue { .number(value, integer: nil) }
        return .object([
            ("prior", .string(weightGuard.centerName)), ("anchor", .string(weightGuard.anchorName)),
            ("share", number(weightGuard.share)), ("held_out_rows", .number(Double(weightGuard.heldOutRows), integer: Int64(weightGuard.heldOutRows))),
            ("holdout", .string(weightGuard.holdout.rawValue)),
            ("validation", .array(weightGuard.validation.map { candidate in
                .object([("name", .string(candidate.name)), ("log_likelihood", number(candidate.logLikelihood)),
                         ("mrr", number(candidate.meanReciprocalRank))])
            })),
        ])
    }
}
