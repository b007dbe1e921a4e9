import ArgumentParser
import ProactiveModels
import ProactiveStore

@main
struct Proactive: AsyncParsableCommand {
    /// The release, bumped with each tagged release.
    static let release = "0.1.0"

    /// `proactive --version`: the release, and the file formats this build reads and writes.
    static var version: String {
        "\(release) (store schema \(ProactiveDatabase.migrations.last!.name), model format \(ModelArchive.formatVersion))"
    }

    static let configuration = CommandConfiguration(
        commandName: "proactive",
        abstract: "Learn from app donations and suggest what the user wants now.",
        version: version,
        subcommands: [ImportCommand.self, ExportCommand.self, DonateCommand.self, DeleteCommand.self, StatsCommand.self,
                      ConvertCommand.self, SplitCommand.self, EvaluateCommand.self, SimulateCommand.self,
                      SuggestCommand.self, StackCommand.self, ShortcutsCommand.self, TimelineCommand.self, FeedbackCommand.self,
                      FocusCommand.self, NotifyCommand.self, MigrateCommand.self, DefinitionsCommand.self,
                      TrainCommand.self, PredictCommand.self, LintCommand.self,
                      PauseCommand.self, RetentionCommand.self, ForgetCommand.self, CompactCommand.self,
                      ServeCommand.self, AppsCommand.self]
    )
}
