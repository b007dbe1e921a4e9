import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive launcher

struct LauncherCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "launcher",
        abstract: "Suggestions in a desktop launcher: a rofi script mode, or lines for dmenu.",
        subcommands: [LauncherRofiCommand.self, LauncherLinesCommand.self, LauncherLaunchCommand.self])
}

/// Options every launcher command shares.
struct LauncherOptions: ParsableArguments {
    @Option(help: "Whose suggestions, and who the launch is donated for.")
    var user: String = Donation.defaultUser

    @Option(help: "How many suggestions before the applications.")
    var suggestions: Int = 5

    @Option(help: "The moment to suggest for, as `suggest --at` reads it (default: now).")
    var at: String?

    @Flag(help: "Lift the confidence floor: the best candidates are listed first even when none is confident.")
    var developer = false

    func menu(_ engine: Engine) throws -> [LauncherItem] {
        let date = try at.map { try engine.readMoment($0, user: user).date } ?? Date()
        return try engine.launcherMenu(user: user, at: date, applications: Self.applications(), k: suggestions, developerMode: developer)
    }

    static func applications() -> [DesktopApplication] { DesktopApplications.find(environment: ProcessInfo.processInfo.environment) }

    /// Runs the row's action detached from this process (its own session, output dropped), then
    /// donates the launch. A paused recording stores nothing (said on standard error).
    static func launch(_ item: LauncherItem, engine: Engine) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        switch item.action {
        case let .application(application): process.arguments = ["-f", "/bin/sh", "-c", application.command]
        case let .site(site): process.arguments = ["-f", "xdg-open", "https://\(site)"]
        }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        var donation = item.donation
        donation.date = Date()
        do {
            try engine.donate(donation)
        } catch let error as StoreError where error.code == .recordingPaused {
            printError("recording is paused: the launch of \(item.text) is not donated")
        }
    }
}

/// `proactive launcher rofi`: rofi's script mode (`rofi -show proactive -modi "proactive:proactive launcher rofi"`;
/// rofi 1.7.4 and later also read `-modes`). rofi splits the mode at its colons: write `--at` in Unix seconds.
struct LauncherRofiCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rofi",
        abstract: "A rofi script mode: the engine's suggestions first, then every application; launches and donates the choice.",
        discussion: """
            rofi runs it with no argument to list the rows (ROFI_RETV=0): the user's suggestions now \
            that a launcher can act on (an application of the desktop, a site), best first and marked \
            with a star, then every application of the XDG data directories' .desktop files by name. \
            When a row is chosen rofi runs it again (ROFI_RETV=1, ROFI_INFO naming the row): it starts \
            the application (or opens the site), donates the launch as an `open` of the app (what \
            ActivityWatch calls it: the file's StartupWMClass, else the program's name), and exits, \
            which closes rofi. rofi 1.7.4 and later also take -modes for -modi. rofi splits the mode \
            at its colons: give --at in Unix seconds there.

            Examples:
              rofi -show proactive -modi "proactive:proactive launcher rofi"
              rofi -show proactive -modi "proactive:proactive launcher rofi --user me"
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var options: LauncherOptions

    @Argument(help: "The chosen row's text (rofi passes it; ROFI_INFO names the row).")
    var selection: String?

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let engine = try storeOptions.openEngine()
        if environment["ROFI_RETV"] == "1", let key = environment["ROFI_INFO"] {
            guard let item = LauncherItem.named(key, user: options.user, applications: LauncherOptions.applications(), date: Date()) else {
                throw CommandFailure(description: "launcher: no application or site named \(key)")
            }
            try LauncherOptions.launch(item, engine: engine)
            return
        }
        guard selection == nil else { return }  // typed text that is no row: nothing to launch
        var out = "\0prompt\u{1F}proactive\n\0no-custom\u{1F}true\n"
        for item in try options.menu(engine) {
            out += (item.suggested ? "★ " : "") + Self.clean(item.text) + "\0info\u{1F}" + Self.clean(item.key)
            if case let .application(application) = item.action, let icon = application.icon { out += "\u{1F}icon\u{1F}" + Self.clean(icon) }
            out += "\n"
        }
        FileHandle.standardOutput.write(Data(out.utf8))
    }

    /// Rows are separated by newlines and options by NUL and 0x1F: none of them inside a value.
    static func clean(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\n" && $0 != "\0" && $0 != "\u{1F}" }.map(Character.init))
    }
}

/// `proactive launcher lines`: the menu as plain lines, for dmenu and the like.
struct LauncherLinesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lines",
        abstract: "The launcher's menu as lines (suggestions first): pipe it to dmenu, then `launcher launch` the choice.",
        discussion: """
            Example:
              proactive launcher launch "$(proactive launcher lines | dmenu)"
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var options: LauncherOptions

    func run() throws {
        for item in try options.menu(try storeOptions.openEngine()) { print(LauncherRofiCommand.clean(item.text)) }
    }
}

/// `proactive launcher launch TEXT`: launches the row with that text and donates it.
struct LauncherLaunchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "launch",
        abstract: "Launch the menu row with this text (as `launcher lines` printed it) and donate the launch.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var options: LauncherOptions

    @Argument(help: "The row's text.")
    var text: String

    func run() throws {
        guard !text.isEmpty else { return }  // dmenu closed without a choice
        let engine = try storeOptions.openEngine()
        guard let item = try options.menu(engine).first(where: { $0.text == text }) else {
            throw CommandFailure(description: "launcher: no row reads \"\(text)\" (see proactive launcher lines)")
        }
        try LauncherOptions.launch(item, engine: engine)
    }
}
