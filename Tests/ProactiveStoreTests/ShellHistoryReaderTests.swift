import Foundation
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

@Suite("Shell history reader")
struct ShellHistoryReaderTests {
    static let utc = TimeZone(identifier: "UTC")!
    static let paris = TimeZone(identifier: "Europe/Paris")!

    static func read(_ text: String, _ shell: ShellKind, keepArguments: Bool = false) throws -> (DeviceLogSummary, [Donation]) {
        let directory = try TemporaryDirectory()
        let path = try directory.write("history", text)
        var donations: [Donation] = []
        let summary = try ShellHistoryReader.read(path: path, shell: shell,
                                                  options: ShellHistoryOptions(user: "me", timeZone: paris, keepArguments: keepArguments)) {
            donations.append($0)
        }
        return (summary, donations)
    }

    // MARK: Commands

    @Test func theIntentIsTheCommandAndOnlyWhatRepeatsIsKept() {
        #expect(ShellCommand.parse("git -C ~/src commit -m \"fix: it\"") == ShellCommand(intent: "git", parameters: ["subcommand": .string("commit")]))
        #expect(ShellCommand.parse("sudo -u root /usr/bin/systemctl restart nginx") == ShellCommand(intent: "systemctl", parameters: ["subcommand": .string("restart")]))
        #expect(ShellCommand.parse("ssh -p 2222 -i key me@box uptime") == ShellCommand(intent: "ssh", parameters: ["host": .string("me@box")]))
        #expect(ShellCommand.parse("cd") == ShellCommand(intent: "cd", parameters: ["directory": .string("~")]))
        #expect(ShellCommand.parse("cd 'My Documents'") == ShellCommand(intent: "cd", parameters: ["directory": .string("My Documents")]))
        #expect(ShellCommand.parse("LANG=C make -j4 test > log") == ShellCommand(intent: "make", parameters: ["subcommand": .string("test")]))
        #expect(ShellCommand.parse("vim notes.txt | tee x") == ShellCommand(intent: "vim"))
        #expect(ShellCommand.parse("vim notes.txt", keepArguments: true) == ShellCommand(intent: "vim", parameters: ["arguments": .string("notes.txt")]))
        #expect(ShellCommand.parse("   ") == nil)
        #expect(ShellCommand.parse("# a comment") == nil)
        #expect(ShellCommand.parse("FOO=1") == nil)
    }

    // MARK: zsh

    @Test func zshExtendedHistoryWithContinuationsAndLinesWithoutATime() throws {
        let text = """
            : 1733472000:0;git status
            : 1733472060:3;for f in *; do\\
              echo $f\\
            done
            ls -la
            : 1733472120:0;ssh me@box
            : nonsense:0;git pull
            : 1733472180:0;

            """
        let (summary, donations) = try Self.read(text, .zsh)
        #expect(donations.map(\.intent) == ["git", "for", "ssh"])
        #expect(donations[0].app == "zsh" && donations[0].user == "me")
        #expect(donations[0].date == Date(timeIntervalSince1970: 1_733_472_000))
        #expect(donations[0].utcOffset == 3600)  // Paris in December
        #expect(summary.rowsRead == 6 && summary.kept == 3)
        #expect(summary.skipped == [ShellHistoryReader.noTimeReason: 1])
        #expect(summary.dropped == [ShellHistoryReader.noCommandReason: 1])
        #expect(summary.problemCount == 1)
        #expect(summary.problems.first?.description == "line 7: time: must be Unix seconds (digits), found \"nonsense\"")
    }

    @Test func zshMetafiedBytesAreDecoded() {
        // zsh writes a byte from 0x83 to 0xA2 as 0x83 then the byte xor 32: "é" (C3 A9) keeps C3 A9 (A9 is above A2),
        // and a byte 0x89 reads back from 0x83 0xA9.
        #expect(ShellHistoryReader.unmetafy(Data([0x61, 0x83, 0xE3, 0x83, 0x89])) == "aé")
        #expect(ShellHistoryReader.unmetafy(Data([0x61, 0xC3, 0xA9])) == "aé")
    }

    // MARK: fish

    @Test func fishEntriesWithPathsEscapesAndNoTime() throws {
        let text = """
            - cmd: git push
              when: 1733472000
            - cmd: cd ~/src
              when: 1733472030
              paths:
                - ~/src
            - cmd: echo a\\nb
            - cmd: ssh box
              when: 17334720xx

            """
        let (summary, donations) = try Self.read(text, .fish)
        #expect(donations.map(\.intent) == ["git", "cd"])
        #expect(donations[1].parameters == ["directory": .string("~/src")])
        #expect(summary.skipped == [ShellHistoryReader.noTimeReason: 1])
        #expect(summary.problems.map(\.description) == ["line 9: when: must be Unix seconds (digits), found \"17334720xx\""])
        #expect(ShellHistoryReader.fishUnescape("echo a\\nb \\\\ \\t") == "echo a\nb \\ \\t")
    }

    // MARK: bash

    @Test func bashTimestampLinesGiveTheNextCommandItsTime() throws {
        let text = """
            ls
            #1733472000
            git log --oneline
            #1733472060
            cd /etc
            #notatime
            #99999999999999
            make

            """
        let (summary, donations) = try Self.read(text, .bash)
        #expect(donations.map(\.intent) == ["git", "cd"])
        #expect(donations[0].parameters == ["subcommand": .string("log")])
        // "ls" (no time) and "#notatime" (a comment line without a time) are skipped.
        #expect(summary.skipped == [ShellHistoryReader.noTimeReason: 2])
        #expect(summary.problemCount == 1)
        #expect(summary.problems.first?.description.hasPrefix("line 7: time: Unix time") == true)
    }

    // MARK: Real shells

    /// Writes a zsh history with the real zsh (Debian's package) when it is installed.
    @Test func zshWrittenByZshItself() throws {
        guard let zsh = ["/usr/bin/zsh", "/bin/zsh"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            print("SKIPPED: zsh is not installed (apt-get install zsh); the documented format is tested above")
            return
        }
        let directory = try TemporaryDirectory()
        let history = directory.file("zsh_history")
        let before = Date().timeIntervalSince1970.rounded(.down)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: zsh)
        process.arguments = ["-f", "-i", "-o", "EXTENDED_HISTORY", "-o", "INC_APPEND_HISTORY"]
        process.environment = ["HISTFILE": history, "SAVEHIST": "100", "HISTSIZE": "100", "PATH": "/usr/bin:/bin", "HOME": directory.path]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data("git status\ncd /tmp\ntrue | cat\nexit\n".utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        let after = Date().timeIntervalSince1970.rounded(.up)
        var donations: [Donation] = []
        let summary = try ShellHistoryReader.read(path: history, shell: .zsh, options: ShellHistoryOptions(timeZone: Self.utc)) { donations.append($0) }
        #expect(donations.map(\.intent) == ["git", "cd", "true", "exit"])
        #expect(summary.kept == 4 && summary.problemCount == 0)
        #expect(donations.allSatisfy { (before ... after).contains($0.date.timeIntervalSince1970) })
    }
}
