import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

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

    func run() async throws {
        let engine = try modelOptions.engine(storeOptions)
        try RecordingPolicy.applyRetention(engine, now: Date())  // never learn from what has expired
        if let user {
            do { try engine.requireDonations(user: user) } catch let error as EngineError where error.code == .noDonations {
                throw CommandFailure(description: "\(storeOptions.displayName): \(error.description)")
            }
        }
        let users = try user.map { [$0] } ?? engine.users()
        guard !users.isEmpty else { throw CommandFailure(description: "no users with donations in \(storeOptions.displayName)") }
        BLAS.setThreadCount(1)  // parallel over users instead
        let name = modelOptions.model
        let clock = ContinuousClock()
        let started = clock.now
        var phaseStart = started
        func rate(_ done: Int, of total: Int, since start: ContinuousClock.Instant) -> String {
            ProgressPrinter.rateAndTimeLeft(done: done, total: total, seconds: Self.seconds(clock.now - start))
                .replacingOccurrences(of: "/s", with: " users/s")
        }
        // A user alone keeps the prior of their saved state; several learn the population's.
        let run = await engine.train(users: users, modelOptions.choice, concurrency: jobs ?? ProcessInfo.processInfo.activeProcessorCount,
                                     populationPrior: user == nil) { event in
            switch event {
            case let .walked(_, done, total, failure):
                if let failure { printError("[\(done)/\(total)] \(failure)") }
                if !quiet, total > 1, done % max(1, total / 20) == 0 || done == total {
                    printError("walked \(done)/\(total) users" + rate(done, of: total, since: started))
                }
            case let .prior(prior):
                if !quiet, let prior { printError("prior: \(prior.name)") }
                phaseStart = clock.now
            case let .fitted(_, done, total, .success(trained)):
                if !quiet {
                    printError(String(format: "[%d/%d] user %@: %d donations, %d targets, %.2f s, %d bytes", done, total, trained.user,
                                      trained.live.key.donationCount, trained.live.targets.count, trained.seconds, trained.live.savedBytes ?? 0)
                               + rate(done, of: total, since: phaseStart))
                }
            case let .fitted(_, done, total, .failure(failure)):
                printError("[\(done)/\(total)] \(failure.description)")
            }
        }
        let (outcomes, failures) = (run.trained, run.failures)
        if report, !json {
            for outcome in outcomes {
                print("\(outcome.user): \(outcome.weightGuard?.summary ?? "no guard (\(name) has no blend weights)")")
            }
        }
        let seconds = Self.seconds(clock.now - started)
        if json {
            func number(_ value: Double) -> JSONValue { .number(value, integer: nil) }
            func count(_ value: Int) -> JSONValue { .number(Double(value), integer: Int64(value)) }
            print(JSONWriter.string(.object([
                ("model", .string(name)), ("seconds", number(seconds)),
                ("users", .array(outcomes.map { outcome in
                    .object([("user", .string(outcome.user)), ("donations", count(outcome.live.key.donationCount)),
                             ("targets", count(outcome.live.targets.count)), ("seconds", number(outcome.seconds)),
                             ("bytes", count(outcome.live.savedBytes ?? 0)), ("guard", outcome.weightGuard.map { Self.json($0) } ?? .null)])
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
