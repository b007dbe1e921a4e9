import ArgumentParser
import Foundation

@main
struct Proactive: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proactive",
        abstract: "Learn from app donations and suggest what the user wants now.",
        subcommands: [ImportCommand.self, ExportCommand.self, DonateCommand.self, DeleteCommand.self, StatsCommand.self,
                      ConvertCommand.self, SplitCommand.self, EvaluateCommand.self, SimulateCommand.self,
                      SuggestCommand.self, StackCommand.self, ShortcutsCommand.self, TimelineCommand.self, FeedbackCommand.self,
                      FocusCommand.self, NotifyCommand.self, MigrateCommand.self, DefinitionsCommand.self,
                      TrainCommand.self, PredictCommand.self, LintCommand.self,
                      PauseCommand.self, RetentionCommand.self, ForgetCommand.self, CompactCommand.self]
    )

    /// Runs the command; output that could not be written (a full disk, `> /dev/full`) fails the run.
    static func main() async {
        await main(nil)
        if fflush(nil) != 0 {
            FileHandle.standardError.write(Data("Error: cannot write to standard output: \(String(cString: strerror(errno)))\n".utf8))
            Foundation.exit(1)
        }
    }
}
