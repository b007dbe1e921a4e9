import ArgumentParser
@testable import ProactiveCLI
import Testing

/// Every command names itself: a command without a `commandName` is named by ArgumentParser from its type
/// (`String(describing:)`), which scans the protocol conformance records, and every command line (even
/// `--version`) builds the whole command tree.
@Suite("command names")
struct CommandNameTests {
    static func unnamed(_ command: any ParsableCommand.Type = Proactive.self, path: String = "proactive") -> [String] {
        var found = command.configuration.commandName == nil ? [path] : []
        for child in command.configuration.subcommands {
            found += unnamed(child, path: path + " " + (child.configuration.commandName ?? "\(child)"))
        }
        return found
    }

    @Test func everyCommandHasAnExplicitName() {
        #expect(Self.unnamed().isEmpty)
        #expect(CommandTests.HelpTextTests.discussions().contains { $0.path == "apps add" })
        #expect(CommandTests.HelpTextTests.discussions().contains { $0.path == "retention apply" })
    }
}
