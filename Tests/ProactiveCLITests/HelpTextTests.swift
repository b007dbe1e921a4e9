import ArgumentParser
@testable import ProactiveCLI
import Testing

extension CommandTests {
    /// What `proactive help <command>` prints reads as written.
    @Suite("help texts")
    struct HelpTextTests {
        /// Every command's discussion, by its path (`users timezone`).
        static func discussions(of command: any ParsableCommand.Type = Proactive.self,
                                path: String = "") -> [(path: String, text: String)] {
            var found = [(path: path, text: command.configuration.discussion)]
            for child in command.configuration.subcommands {
                let name = child._commandName
                found += discussions(of: child, path: path.isEmpty ? name : path + " " + name)
            }
            return found
        }

        /// A `\` in a discussion's prose is a line continuation written twice (`\\`), printed as it is;
        /// only an example line may end in one (a shell continuation).
        @Test func noProseShowsABackslash() {
            let all = Self.discussions()
            #expect(all.contains { $0.path == "users timezone" })
            for (path, text) in all {
                let prose = text.split(separator: "\n", omittingEmptySubsequences: false)
                    .prefix { !$0.hasPrefix("Example") }.joined(separator: "\n")
                #expect(!prose.contains("\\"), "proactive \(path): a backslash in the help's prose")
            }
        }

        /// `help users timezone` prints its discussion as sentences, without the stray backslashes it had.
        @Test func usersTimezoneHelpReadsAsWritten() async {
            let help = await proactive(["help", "users", "timezone"])
            let words = help.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(words.contains("how --at without an offset is read"), "\(help)")
            #expect(!help.output.contains("\\"), "\(help)")
        }
    }
}
