import Foundation
import ProactiveCore

// MARK: - Shell history with times

/// The shells whose history files carry each command's time.
package enum ShellKind: String, Sendable, CaseIterable {
    /// zsh with `setopt EXTENDED_HISTORY`: `: 1733472000:0;git status` (start, elapsed seconds; command).
    case zsh
    /// fish's `fish_history`: `- cmd: git status` then `  when: 1733472000`.
    case fish
    /// bash with `HISTTIMEFORMAT` set: a `#1733472000` line before each command.
    case bash
}

/// How shell history becomes donations.
package struct ShellHistoryOptions: Sendable, Hashable {
    package var user: String
    /// The zone the machine's clock lived in; each donation's offset is this zone's offset at its instant.
    package var timeZone: TimeZone
    /// Also donate the `arguments` parameter (the rest of the line); off by default because it rarely repeats.
    package var keepArguments: Bool

    package init(user: String = Donation.defaultUser, timeZone: TimeZone, keepArguments: Bool = false) {
        self.user = user
        self.timeZone = timeZone
        self.keepArguments = keepArguments
    }
}

/// Reads a shell's history file into donations: app the shell's name (`zsh`,
/// `fish`, `bash`), intent the command (`ShellCommand`), at the time the file
/// gives it, oldest first as the file lists them.
///
/// A command without a time (zsh without EXTENDED_HISTORY, bash lines with no
/// `#EPOCH` line before them, fish entries without `when:`) is counted and
/// skipped, never given a guessed time. A time that cannot be read is a
/// malformed line, named `line N: field: reason`. zsh's metafied bytes
/// (0x83 then the byte xor 32) are decoded; a command continued over several
/// lines (zsh's trailing `\`, fish's `\n`) is one command.
///
/// ```swift
/// let summary = try ShellHistoryReader.read(path: "/home/me/.zsh_history", shell: .zsh,
///                                           options: ShellHistoryOptions(timeZone: .current)) { print($0) }
/// ```
package enum ShellHistoryReader {
    package static let noTimeReason = "command without a time"
    package static let noCommandReason = "no command (empty, a comment, or only assignments)"

    /// One command found in the file, before conversion.
    struct Entry {
        var line: Int
        var seconds: Result<Double, DonationLineError>?
        var command: String
    }

    /// Streams the file's commands to `emit`.
    ///
    /// - Throws: `StoreError.io` when the file cannot be read; whatever `onProblem`
    ///   (called for each malformed line after it is recorded) or `emit` throws.
    package static func read(path: String, shell: ShellKind, options: ShellHistoryOptions,
                            onProblem: (DeviceLogProblem) throws -> Void = { _ in },
                            emit: (Donation) throws -> Void) throws -> DeviceLogSummary {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StoreError(.io, "cannot read \(path): no such file or not readable")
        }
        var summary = DeviceLogSummary(format: shell.rawValue)
        let entries: [Entry]
        switch shell {
        case .zsh: entries = zshEntries(unmetafy(data))
        case .fish: entries = fishEntries(String(decoding: data, as: UTF8.self))
        case .bash: entries = bashEntries(String(decoding: data, as: UTF8.self))
        }
        for entry in entries {
            summary.rowsRead += 1
            switch convert(entry, shell: shell, options: options) {
            case let .donation(donation):
                summary.kept += 1
                try emit(donation)
            case let .skipped(reason): summary.skip(reason)
            case let .dropped(reason): summary.drop(reason)
            case let .problem(problem):
                summary.record(problem)
                try onProblem(problem)
            }
        }
        summary.notes.append("app \(shell.rawValue), intent the command; time zone \(options.timeZone.identifier)"
                             + (options.keepArguments ? "; arguments kept" : ""))
        return summary
    }

    enum Conversion {
        case donation(Donation)
        case skipped(String)
        case dropped(String)
        case problem(DeviceLogProblem)
    }

    static func convert(_ entry: Entry, shell: ShellKind, options: ShellHistoryOptions) -> Conversion {
        func problem(_ field: String, _ reason: String) -> Conversion {
            .problem(DeviceLogProblem(row: "line \(entry.line)", error: DonationLineError(field: field, reason: reason)))
        }
        guard let time = entry.seconds else { return .skipped(noTimeReason) }
        let seconds: Double
        switch time {
        case let .success(value): seconds = value
        case let .failure(error): return .problem(DeviceLogProblem(row: "line \(entry.line)", error: error))
        }
        guard let command = ShellCommand.parse(entry.command, keepArguments: options.keepArguments) else { return .dropped(noCommandReason) }
        if let reason = IdentifierRules.controlCharacterProblem(command.intent) { return problem("command", reason) }
        let date = Date(timeIntervalSince1970: seconds)
        return .donation(Donation(user: options.user, app: shell.rawValue, intent: command.intent, parameters: command.parameters,
                                  date: date, utcOffset: options.timeZone.secondsFromGMT(for: date)))
    }

    /// Reads a Unix time in seconds written as decimal digits.
    static func unixSeconds(_ text: Substring, field: String) -> Result<Double, DonationLineError> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.allSatisfy(\.isASCIIDigit), let value = Double(trimmed) else {
            return .failure(DonationLineError(field: field, reason: "must be Unix seconds (digits), found \"\(trimmed.prefix(40))\""))
        }
        do {
            return .success(try Timestamp.validateUnixSeconds(value))
        } catch {
            return .failure(DonationLineError(field: field, reason: error.reason))
        }
    }

    // MARK: zsh

    /// zsh writes bytes 0x83..0xA2 and NUL as 0x83 followed by the byte xor 32 ("metafied").
    static func unmetafy(_ data: Data) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count)
        var meta = false
        for byte in data {
            if meta { bytes.append(byte ^ 32); meta = false } else if byte == 0x83 { meta = true } else { bytes.append(byte) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `: START:ELAPSED;COMMAND`, a command continued while its line ends in `\`.
    static func zshEntries(_ text: String) -> [Entry] {
        var entries: [Entry] = []
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        if lines.last == "" { lines.removeLast() }
        var number = 0
        while let line = lines.popFirst() {
            number += 1
            let first = number
            var command = line
            var joined = String(line)
            // Continuation: a trailing backslash joins the next line (the newline was part of the command).
            while joined.hasSuffix("\\"), let next = lines.popFirst() {
                number += 1
                joined = String(joined.dropLast()) + "\n" + next
            }
            command = Substring(joined)
            if command.hasPrefix(": "), let colon = command.dropFirst(2).firstIndex(of: ":"),
               let semicolon = command[colon...].firstIndex(of: ";") {
                let start = command[command.index(command.startIndex, offsetBy: 2) ..< colon]
                entries.append(Entry(line: first, seconds: unixSeconds(start, field: "time"),
                                     command: String(command[command.index(after: semicolon)...])))
            } else if command.hasPrefix(": ") {
                entries.append(Entry(line: first, seconds: .failure(DonationLineError(
                    field: "time", reason: "an extended-history line must read \": START:ELAPSED;COMMAND\"")), command: ""))
            } else {
                entries.append(Entry(line: first, seconds: nil, command: String(command)))
            }
        }
        return entries
    }

    // MARK: fish

    /// `- cmd: COMMAND` entries with `  when: EPOCH` (and `  paths:` lists, ignored).
    static func fishEntries(_ text: String) -> [Entry] {
        var entries: [Entry] = []
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("- cmd:") {
                let command = line.dropFirst("- cmd:".count).drop(while: { $0 == " " })
                entries.append(Entry(line: offset + 1, seconds: nil, command: fishUnescape(command)))
            } else if line.hasPrefix("  when:"), !entries.isEmpty, entries[entries.count - 1].seconds == nil {
                let seconds = unixSeconds(line.dropFirst("  when:".count), field: "when")
                entries[entries.count - 1].seconds = seconds
                // A time that cannot be read is named on its own line.
                if case .failure = seconds { entries[entries.count - 1].line = offset + 1 }
            }
        }
        return entries
    }

    /// fish writes `\\` for a backslash and `\n` for a newline in `cmd:`.
    static func fishUnescape(_ text: Substring) -> String {
        var out = ""
        var escaped = false
        for character in text {
            if escaped {
                switch character {
                case "n": out.append("\n")
                case "\\": out.append("\\")
                default: out += "\\\(character)"
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        if escaped { out.append("\\") }
        return out
    }

    // MARK: bash

    /// `#EPOCH` lines (HISTTIMEFORMAT set) each give the next line's time.
    static func bashEntries(_ text: String) -> [Entry] {
        var entries: [Entry] = []
        var pending: (line: Int, seconds: Result<Double, DonationLineError>)?
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        if lines.last == "" { lines.removeLast() }
        for (offset, line) in lines.enumerated() {
            if line.hasPrefix("#"), line.dropFirst().first?.isASCIIDigit == true {
                pending = (offset + 1, unixSeconds(line.dropFirst(), field: "time"))
                continue
            }
            if let time = pending {
                entries.append(Entry(line: time.line, seconds: time.seconds, command: String(line)))
                pending = nil
            } else {
                entries.append(Entry(line: offset + 1, seconds: nil, command: String(line)))
            }
        }
        return entries
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0" ... "9").contains(self) }
}
