import ArgumentParser
import Foundation
import LinearAlgebra
import ProactiveCore
import ProactiveModels
import ProactiveStore

// MARK: - proactive train

/// Fits and saves per-user models in the store.
struct TrainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "train",
        abstract: "Fit each user's model on their donations and save it in the store.",
        discussion: """
            Trains every user (or only --user) in parallel, one user per core, and saves each model in the \
            store's model table (versioned binary with a checksum, replaced atomically). A saved model that \
            is unreadable (corrupt, truncated, another format version) is reported and rebuilt. Deleting a \
            donation drops its user's saved models; `predict` then trains on the fly until `train` runs again. \
            The retention policy is applied first (proactive retention), so no model learns from expired donations.

            Models: \(SavableModels.names.joined(separator: ", ")) (default \(SavableModels.defaultName)). \
            Each user's configured time zone (or --timezone) decides their local clock.

            Example:
              proactive train --store proactive.sqlite
              proactive train --user u1 --model profile
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Train only this user.")
    var user: String?

    @OptionGroup var modelOptions: ModelOptions

    @Option(help: "Users trained at once (default: the number of cores).")
    var jobs: Int?

    @Flag(help: "No progress on standard error.")
    var quiet = false

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
        var rebuiltCorrupt: String?
    }

    func run() async throws {
        let database = try storeOptions.openDatabase(.mustExist)
        try RecordingPolicy.applyRetention(database, now: Date())  // never learn from what has expired
        let users = try user.map { [$0] } ?? SQLiteDonationStore(database: database).users()
        guard !users.isEmpty else { throw CommandFailure(description: "no users with donations in \(storeOptions.path)") }
        BLAS.setThreadCount(1)  // parallel over users instead
        let width = min(jobs ?? ProcessInfo.processInfo.activeProcessorCount, users.count)
        let (name, definitions, zone) = (modelOptions.model, modelOptions.definitions, modelOptions.timeZoneName)
        let clock = ContinuousClock()
        let started = clock.now
        var done = 0
        var failures: [String] = []
        try await withThrowingTaskGroup(of: Result<Outcome, CommandFailure>.self) { group in
            var pending = users[...]
            func startNext() {
                guard let next = pending.popFirst() else { return }
                group.addTask {
                    do { return .success(try Self.train(user: next, name: name, database: database, definitions: definitions, zone: zone)) }
                    catch let failure as CommandFailure { return .failure(failure) }
                    catch { return .failure(CommandFailure(description: "user \(next): \(error)")) }
                }
            }
            for _ in 0 ..< width { startNext() }
            for try await result in group {
                done += 1
                switch result {
                case let .success(outcome):
                    if let problem = outcome.rebuiltCorrupt {
                        printError("user \(outcome.user): the saved \(name) model was unreadable (\(problem)); rebuilt it")
                    }
                    if !quiet {
                        printError(String(format: "[%d/%d] user %@: %d donations, %d targets, %.2f s, %d bytes", done, users.count,
                                          outcome.user, outcome.donations, outcome.targets, outcome.seconds, outcome.bytes))
                    }
                case let .failure(failure):
                    failures.append(failure.description)
                    printError("[\(done)/\(users.count)] \(failure.description)")
                }
                startNext()
            }
        }
        let seconds = Self.seconds(clock.now - started)
        print(String(format: "trained %d of %d users (%@) in %.2f s", users.count - failures.count, users.count, name, seconds))
        if !failures.isEmpty { throw ExitCode.failure }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Loads, fits and saves one user's model (runs in a task of its own).
    static func train(user: String, name: String, database: ProactiveDatabase, definitions: String?, zone: String?) throws -> Outcome {
        let clock = ContinuousClock()
        let started = clock.now
        let models = SQLiteModelStore(database: database)
        var problem: String?
        if let existing = try models.load(user: user, name: name) {
            do { _ = try ModelArchive.decodeAny(existing.bytes) } catch { problem = error.description }
        }
        // A deletion while training would leave the deleted donations in the saved model: retrain instead.
        var saved: SavedModel
        var session: ModelSession
        var attempts = 0
        repeat {
            attempts += 1
            let mark = try models.erasureMark()
            session = try ModelSession.load(database: database, user: user, definitions: definitions, zoneOverride: zone)
            guard !session.donations.isEmpty else { throw CommandFailure(description: "user \(user) has no donations") }
            saved = session.savedModel(try session.fit(name), name: name, now: Date())
            if try models.save(saved, ifNoDeletionSince: mark) { break }
            guard attempts < 3 else {
                throw CommandFailure(description: "user \(user): donations kept being deleted while training; the model was not saved (run train again)")
            }
        } while true
        let elapsed = clock.now - started
        return Outcome(user: user, donations: session.donations.count, targets: session.training.targets.count,
                       seconds: seconds(elapsed),
                       bytes: saved.bytes.count, rebuiltCorrupt: problem)
    }
}
