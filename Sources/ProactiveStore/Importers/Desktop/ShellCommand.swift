import Foundation
import ProactiveCore

// MARK: - One command line, as an intent

/// What a shell command line becomes: the command as the intent, and the
/// parameters that repeat from one run to the next.
///
/// The intent is the command's name (`/usr/bin/git` reads `git`), after
/// leading variable assignments (`LANG=C make`) and the wrappers `sudo`,
/// `doas`, `env`, `time`, `nohup`, `exec`, `command`, `builtin`, `noglob`.
/// Only the first simple command counts (`git log | less` is `git`). The
/// parameters keep what repeats and drop what never does:
///
/// - `subcommand`: the first argument that is not an option, for tools driven
///   by a subcommand (`git`, `docker`, `cargo`, `kubectl`, `systemctl`, ...);
///   `git -C repo commit -m "x"` has subcommand `commit`.
/// - `host`: `ssh`'s and `mosh`'s destination (`ssh -p 2222 me@box` has host `me@box`).
/// - `directory`: `cd`'s, `pushd`'s and `z`'s argument as typed (`cd` alone is `~`).
/// - `arguments` (only with `keepArguments`): the rest of the line, which
///   rarely repeats; `proactive lint` names it ("never repeats").
///
/// ```swift
/// ShellCommand.parse("sudo git -C ~/src pull --rebase")  // intent "git", parameters ["subcommand": "pull"]
/// ```
package struct ShellCommand: Sendable, Hashable {
    package var intent: String
    package var parameters: [String: ParameterValue]

    /// Tools whose first non-option argument names what they do.
    package static let subcommandTools: Set<String> = [
        "git", "docker", "podman", "cargo", "npm", "yarn", "pnpm", "kubectl", "systemctl", "apt", "apt-get", "dnf",
        "brew", "go", "swift", "pip", "pip3", "uv", "poetry", "just", "make", "nix", "flatpak", "snap", "gh", "hg",
        "svn", "terraform", "helm", "journalctl", "rustup", "conda", "pacman", "zypper", "dotnet", "bundle", "rails",
    ]
    /// Commands whose destination is the `host` parameter.
    package static let hostTools: Set<String> = ["ssh", "mosh", "sftp"]
    /// Commands whose argument is the `directory` parameter.
    package static let directoryTools: Set<String> = ["cd", "pushd", "z"]
    /// Words skipped before the command itself.
    static let wrappers: Set<String> = ["sudo", "doas", "env", "time", "nohup", "exec", "command", "builtin", "noglob", "nice"]
    /// Options that take a value, for the tools whose first argument is read.
    static let optionsWithValue: [String: Set<String>] = [
        "git": ["-C", "-c", "--git-dir", "--work-tree", "--namespace"],
        "ssh": ["-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p", "-Q", "-R", "-S", "-W", "-w"],
        "mosh": ["--ssh", "-p", "--port", "--server", "--client", "--predict"],
        "sftp": ["-B", "-b", "-c", "-D", "-F", "-i", "-J", "-l", "-o", "-P", "-R", "-S", "-s"],
        "docker": ["-H", "--host", "--config", "--context", "-c", "--log-level", "-l"],
        "kubectl": ["-n", "--namespace", "--context", "--kubeconfig", "-s", "--server", "--cluster", "--user"],
        "systemctl": ["-H", "--host", "-M", "--machine", "-t", "--type", "-p", "--property", "--state"],
        "make": ["-C", "-f", "--file", "--directory", "-j", "-I", "-o", "-W"],
        "cargo": ["-Z", "--config", "-C"],
        "swift": ["--package-path", "-C"],
    ]

    package init(intent: String, parameters: [String: ParameterValue] = [:]) {
        self.intent = intent
        self.parameters = parameters
    }

    /// Reads one command line; nil when it holds no command (empty, a comment,
    /// only assignments or wrappers).
    package static func parse(_ line: String, keepArguments: Bool = false) -> ShellCommand? {
        var words = Self.words(line)[...]
        var afterWrapper = false
        while let first = words.first {
            if isAssignment(first) || wrappers.contains(first) {
                afterWrapper = afterWrapper || wrappers.contains(first)
                words.removeFirst()
            } else if afterWrapper, first.hasPrefix("-") {
                words.removeFirst(wrapperOptionsWithValue.contains(first) && words.count > 1 ? 2 : 1)
            } else {
                break
            }
        }
        guard let commandWord = words.first else { return nil }
        let name = commandWord.split(separator: "/").last.map(String.init) ?? commandWord
        guard !name.isEmpty else { return nil }
        let arguments = Array(words.dropFirst())
        var parameters: [String: ParameterValue] = [:]
        if subcommandTools.contains(name) || hostTools.contains(name) {
            if let first = firstOperand(arguments, valueOptions: optionsWithValue[name] ?? []) {
                parameters[hostTools.contains(name) ? "host" : "subcommand"] = .string(first)
            }
        } else if directoryTools.contains(name) {
            parameters["directory"] = .string(arguments.first(where: { !$0.hasPrefix("-") || $0 == "-" }) ?? "~")
        }
        if keepArguments, !arguments.isEmpty { parameters["arguments"] = .string(arguments.joined(separator: " ")) }
        return ShellCommand(intent: name, parameters: parameters)
    }

    /// Wrapper options that take a value (`sudo -u root git pull` is `git`).
    static let wrapperOptionsWithValue: Set<String> = ["-u", "-g", "-U", "-C", "-h", "-p", "-r", "-t", "-n"]

    /// `NAME=value` before a command.
    static func isAssignment(_ word: String) -> Bool {
        guard let equals = word.firstIndex(of: "="), equals != word.startIndex else { return false }
        return word[..<equals].allSatisfy { $0 == "_" || $0.isLetter || $0.isNumber } && !(word.first!.isNumber)
    }

    /// The first argument that is not an option (nor an option's value).
    static func firstOperand(_ arguments: [String], valueOptions: Set<String>) -> String? {
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if word == "--" { return index + 1 < arguments.count ? arguments[index + 1] : nil }
            if word.hasPrefix("-") {
                index += valueOptions.contains(word) ? 2 : 1
                continue
            }
            return word
        }
        return nil
    }

    /// Splits the first simple command of `line` into words: white space
    /// separates, single and double quotes group, a backslash escapes; an
    /// unquoted `|`, `;`, `&` or `#` at a word's start ends the command.
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
                continue
            }
            if let open = quote {
                if character == open { quote = nil } else if character == "\\" && open == "\"" { escaped = true } else { current.append(character) }
                continue
            }
            switch character {
            case "\\": escaped = true; inWord = true
            case "'", "\"": quote = character; inWord = true
            case " ", "\t", "\n", "\r":
                if inWord { words.append(current); current = ""; inWord = false }
            case "|", ";", "&", "(", ")", "<", ">":
                if character == "<" || character == ">" {
                    // A redirection ends the words that matter (`cmd > file`).
                    if inWord { words.append(current) }
                    return words
                }
                if inWord { words.append(current) }
                return words
            case "#" where !inWord:
                return words
            default:
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }
}
