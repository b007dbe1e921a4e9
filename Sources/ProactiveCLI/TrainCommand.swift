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

            Models: \(ModelChoice.names.joined(separator: ", ")) (default \(ModelChoice.defaultName)). \
            Each user's configured time zone (or --timezone) decides their local clock.

            Example:
              proactive train --store proactive.sqlite
              proactive train --user u1 --model profile
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

    @Flag(help: "Print the summary as JSON: one entry per user (donations, targets, seconds, bytes) and the failures.")
    var json = false

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
    }

    func run() async throws {
        let engine = try modelOptions.engine(storeOptions)
        let database = engine.database
        try RecordingPolicy.applyRetention(database, now: Date())  // never learn from what has expired
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
        try await withThrowingTaskGroup(of: Result<Outcome, CommandFailure>.self) { group in
            var pending = users[...]
            func startNext() {
                guard let next = pending.popFirst() else { return }
                group.addTask {
                    do { return .success(try Self.train(user: next, choice: choice, engine: engine)) }
                    catch let failure as CommandFailure { return .failure(failure) }
                    catch let failure as EngineError { return .failure(CommandFailure(description: failure.description)) }
                    catch { return .failure(CommandFailure(description: "user \(next): \(error)")) }
                }
            }
            for _ in 0 ..< width { startNext() }
            for try await result in group {
                done += 1
                switch result {
                case let .success(outcome):
                    outcomes.append(outcome)
                    if !quiet {
                        printError(String(format: "[%d/%d] user %@: %d donations, %d targets, %.2f s, %d bytes", done, users.count,
                                          outcome.user, outcome.donations, outcome.targets, outcome.seconds, outcome.bytes)
                                   + ProgressPrinter.rateAndTimeLeft(done: done, total: users.count, seconds: Self.seconds(clock.now - started))
                                       .replacingOccurrences(of: "/s", with: " users/s"))
                    }
                case let .failure(failure):
                    failures.append(failure.description)
                    printError("[\(done)/\(users.count)] \(failure.description)")
                }
                startNext()
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
                             ("seconds", number(outcome.seconds)), ("bytes", count(outcome.bytes))])
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

    /// Fits and saves one user's model (runs in a task of its own).
    static func train(user: String, choice: ModelChoice, engine: Engine) throws -> Outcome {
        let clock = ContinuousClock()
        let started = clock.now
        let live = try engine.train(user: user, choice)
        return Outcome(user: user, donations: live.key.donationCount, targets: live.targets.count, seconds: seconds(clock.now - started),
                       bytes: live.savedBytes ?? 0)
    }
}
