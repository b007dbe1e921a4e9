import ArgumentParser
import Foundation
import ProactiveModels
import ProactiveStore

/// The `proactive` command line (the executable is `ProactiveMain`, one call to `run(arguments:)`).
public struct Proactive: AsyncParsableCommand {
    public init() {}

    /// The release, bumped with each tagged release.
    static let release = "0.1.0"

    /// `proactive --version`: the release, and the file formats this build reads and writes.
    static var version: String {
        "\(release) (store schema \(SQLiteBackend.currentSchema), model format \(ModelArchive.formatVersion))"
    }

    public static let configuration = CommandConfiguration(
        commandName: "proactive",
        abstract: "Learn from app donations and suggest what the user wants now.",
        version: version,
        subcommands: [ImportCommand.self, ExportCommand.self, DonateCommand.self, DeleteCommand.self, StatsCommand.self,
                      ConvertCommand.self, SplitCommand.self, EvaluateCommand.self, SimulateCommand.self,
                      SuggestCommand.self, LauncherCommand.self, FollowCommand.self, StackCommand.self, ShortcutsCommand.self, TimelineCommand.self, FeedbackCommand.self,
                      FocusCommand.self, NotifyCommand.self, MigrateCommand.self, DefinitionsCommand.self,
                      TrainCommand.self, PredictCommand.self, ModelsCommand.self, LintCommand.self,
                      PauseCommand.self, RetentionCommand.self, ForgetCommand.self, CompactCommand.self, UsersCommand.self, CopyCommand.self,
                      ServeCommand.self, AppsCommand.self, RoutinesCommand.self]
    )
}

extension Proactive {
    /// Runs one command line as the `proactive` executable: parses and validates
    /// it, runs the command, and on an error writes ArgumentParser's message
    /// (help and --version to standard output, errors to standard error).
    /// Output goes through `Output` (captured when a task installed a capture).
    /// - Returns: the exit status.
    public static func run(arguments: [String]) async -> Int32 {
        do {
            var command = try parseAsRoot(arguments)
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            return ExitCode.success.rawValue
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error) + hint(for: error)
            if !message.isEmpty {
                if code == .success { Output.write(message + "\n") } else { Output.writeError(message + "\n") }
            }
            return code.rawValue
        }
    }

    /// The command to run about a library error, which states the problem in the library's terms ("" when none).
    static func hint(for error: any Error) -> String {
        guard let error = error as? StoreError, error.code == .recordingPaused, !error.message.contains("pause off") else { return "" }
        return " (proactive pause off resumes)"
    }
}
