import Foundation
import ProactiveCore

// MARK: - The desktop's applications (.desktop files)

/// One application a desktop shows in its menus: a `[Desktop Entry]` of `Type=Application`
/// that is neither `NoDisplay` nor `Hidden` (freedesktop.org Desktop Entry Specification).
public struct DesktopApplication: Sendable, Hashable {
    /// The desktop file ID: the path under `applications/` with `/` as `-` (`org.gnome.Nautilus.desktop`).
    public var id: String
    public var name: String
    /// `Exec` as written, field codes (`%U`, `%f`) included.
    public var exec: String
    public var icon: String?
    public var startupWMClass: String?

    public init(id: String, name: String, exec: String, icon: String? = nil, startupWMClass: String? = nil) {
        self.id = id
        self.name = name
        self.exec = exec
        self.icon = icon
        self.startupWMClass = startupWMClass
    }

    /// The app a launch is donated as: what ActivityWatch's window watcher reports for it where
    /// the file says (`StartupWMClass`), else the program's name (`firefox` for `Exec=/usr/bin/firefox %u`).
    public var app: String {
        if let startupWMClass, IdentifierRules.bundleIdentifierProblem(startupWMClass) == nil { return startupWMClass }
        let program = Self.program(exec)
        if !program.isEmpty, IdentifierRules.bundleIdentifierProblem(program) == nil { return program }
        return String(id.dropLast(id.hasSuffix(".desktop") ? 8 : 0))
    }

    /// Whether a donated app name is this application (case-insensitive: `Alacritty` is `alacritty`):
    /// its `app`, its `StartupWMClass`, its ID without `.desktop`, or that ID's last dotted part.
    public func isApp(_ name: String) -> Bool {
        let wanted = name.lowercased()
        let stem = id.hasSuffix(".desktop") ? String(id.dropLast(8)) : id
        let candidates = [app, startupWMClass ?? "", stem, String(stem.split(separator: ".").last ?? "")]
        return candidates.contains { !$0.isEmpty && $0.lowercased() == wanted }
    }

    /// `Exec` without its field codes (`%f %F %u %U %i %c %k` and the deprecated ones), `%%` as `%`:
    /// the command line to run when no file or URL is passed.
    public var command: String {
        var out = ""
        var percent = false
        for character in exec {
            if percent {
                if character == "%" { out.append("%") }
                percent = false
            } else if character == "%" {
                percent = true
            } else {
                out.append(character)
            }
        }
        return out.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    /// The program's file name: the first word of `Exec` after `env` and `NAME=value` words.
    static func program(_ exec: String) -> String {
        var words = exec.split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }[...]
        while let first = words.first, first == "env" || (first.contains("=") && !first.hasPrefix("/")) { words.removeFirst() }
        return words.first.map { String($0.split(separator: "/").last ?? "") } ?? ""
    }
}

/// Finds the applications of the XDG data directories, as menus do.
///
/// ```swift
/// let apps = DesktopApplications.find(environment: ProcessInfo.processInfo.environment)
/// ```
public enum DesktopApplications {
    /// `$XDG_DATA_HOME` (default `~/.local/share`) then `$XDG_DATA_DIRS` (default
    /// `/usr/local/share:/usr/share`), each with `/applications`; an earlier directory's file
    /// wins over a later one with the same ID.
    public static func directories(environment: [String: String]) -> [String] {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/share"
        let dataDirs = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        return ([dataHome] + dataDirs.split(separator: ":").map(String.init)).map { $0 + "/applications" }
    }

    /// Every shown application, sorted by name (then ID). Unreadable files are passed over.
    public static func find(environment: [String: String]) -> [DesktopApplication] {
        var byID: [String: DesktopApplication?] = [:]
        let files = FileManager.default
        for directory in directories(environment: environment) {
            guard let enumerator = files.enumerator(atPath: directory) else { continue }
            while let relative = enumerator.nextObject() as? String {
                guard relative.hasSuffix(".desktop") else { continue }
                let id = relative.replacingOccurrences(of: "/", with: "-")
                guard byID[id] == nil else { continue }
                let text = (try? String(contentsOfFile: directory + "/" + relative, encoding: .utf8)) ?? ""
                byID[id] = .some(parse(text, id: id))
            }
        }
        return byID.values.compactMap { $0 }.sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
    }

    /// Reads the `[Desktop Entry]` group; nil unless it is a shown application with a name and a command.
    public static func parse(_ text: String, id: String) -> DesktopApplication? {
        var values: [String: String] = [:]
        var inEntry = false
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") { inEntry = line == "[Desktop Entry]"; continue }
            guard inEntry, !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            if values[key] == nil { values[key] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces) }
        }
        guard values["Type"] == "Application", values["NoDisplay"] != "true", values["Hidden"] != "true",
              let name = values["Name"], !name.isEmpty, let exec = values["Exec"], !exec.isEmpty else { return nil }
        return DesktopApplication(id: id, name: name, exec: exec, icon: values["Icon"], startupWMClass: values["StartupWMClass"])
    }
}
