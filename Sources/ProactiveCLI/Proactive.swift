import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

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
                      ServeCommand.self, AppsCommand.self, RoutinesCommand.self, WorldsCommand.self]
    )
}

extension Proactive {
    /// Runs one command line as the `proactive` executable: parses and validates
    /// it, runs the command, and on an error writes ArgumentParser's message
    /// (help and --version to standard output, errors to standard error).
    /// Output goes through `Output` (captured when a task installed a capture).
    /// - Returns: the exit status.
    public static func run(arguments: [String]) async -> Int32 {
        if let unknown = unknownSubcommand(in: arguments) {
            Output.writeError("Error: \(unknown)\n")
            return ExitCode.validationFailure.rawValue
        }
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

    /// Why `arguments` name no command, before ArgumentParser reads them (it would print the root's help
    /// for `proactive sugest --help` and exit 0, or call `sugest` an unexpected argument): the first word
    /// that is not an option, at a level that has subcommands (and no default one), must name one of them
    /// (`help` may stand first: `proactive help sugest` is checked the same way).
    /// - Returns: nil when every word names a command; else the message, with the nearest command
    ///   (`unknown command 'sugest' (did you mean 'suggest'?)`, `unknown command 'focus sett' (did you
    ///   mean 'focus set'?)`), or, when none is near, every command at that level; then where to look.
    static func unknownSubcommand(in arguments: [String]) -> String? {
        var command: any ParsableCommand.Type = Proactive.self
        var path = ["proactive"]
        var words = arguments[...]
        if words.first == "help" { words = words.dropFirst() }
        for word in words {
            let configuration = command.configuration
            guard !word.hasPrefix("-"), word != "help", !configuration.subcommands.isEmpty, configuration.defaultSubcommand == nil else { return nil }
            let names = configuration.subcommands.map { ($0, $0.configuration.commandName ?? $0._commandName) }
            if let match = names.first(where: { $0.1 == word || $0.0.configuration.aliases.contains(word) }) {
                command = match.0
                path.append(word)
                continue
            }
            let prefix = path.dropFirst().map { $0 + " " }.joined()
            let hint = Spelling.suggestion(for: word, among: names.map(\.1)).map { " (did you mean '\(prefix)\($0)'?)" }
                ?? "; the commands\(prefix.isEmpty ? "" : " of '\(path.joined(separator: " "))'") are " + names.map(\.1).joined(separator: ", ")
            return "unknown command '\(prefix)\(word)'\(hint)\nSee '\(path.joined(separator: " ")) --help'."
        }
        return nil
    }

    /// The command to run about a library error, which states the problem in the library's terms ("" when none).
    static func hint(for error: any Error) -> String {
        guard let error = error as? StoreError, error.code == .recordingPaused, !error.message.contains("pause off") else { return "" }
        return " (proactive pause off resumes)"
    }
}
