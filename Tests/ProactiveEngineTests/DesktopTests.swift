import Foundation
import ProactiveCore
@testable import ProactiveEngine
import ProactiveStore
import Testing

/// An ActivityWatch server held in memory: the buckets and their events as the REST API returns them.
final class MemoryActivityWatch: ActivityWatchTransport {
    var windows: [(start: Double, duration: Double, app: String)] = []
    var away = false

    func get(_ path: String) throws -> [UInt8] {
        if away { throw ActivityWatchUnreachable("refused") }
        if path == "/api/0/buckets/" {
            return Array(#"{"aw-watcher-window_box": {"type": "currentwindow", "hostname": "box"}}"#.utf8)
        }
        // Newest first, as the server answers; `start` honoured as events ending at or after it.
        var since = -Double.infinity
        if let range = path.range(of: "start=") {
            let text = String(path[range.upperBound...]).removingPercentEncoding!
            since = try Timestamp.parse(text).secondsSince1970
        }
        let events = windows.filter { $0.start + $0.duration >= since }.sorted { $0.start > $1.start }.map {
            #"{"timestamp": "\#(Timestamp.format(secondsSince1970: $0.start, utcOffsetSeconds: 0))", "duration": \#($0.duration), "data": {"app": "\#($0.app)"}}"#
        }
        return Array(("[" + events.joined(separator: ",") + "]").utf8)
    }
}

@Suite("Desktop: following ActivityWatch, the launcher's menu")
struct DesktopTests {
    static let t0 = 1_796_115_600.0  // 2026-12-01T09:00:00Z
    static let utc = TimeZone(identifier: "UTC")!

    static func stored(_ engine: Engine) throws -> [String] {
        try engine.donations(forUser: Donation.defaultUser).map { "\(Int($0.date.timeIntervalSince1970 - t0)) \($0.app)" }
    }

    @Test func aFollowerStartedAgainReadsOnFromTheStoreAndRepeatsNothing() throws {
        let store = try TemporaryStore()
        let server = MemoryActivityWatch()
        server.windows = [(Self.t0, 60, "firefox"), (Self.t0 + 60, 2, "code"), (Self.t0 + 62, 30, "Alacritty"), (Self.t0 + 92, 3, "firefox")]
        let options = ActivityWatchOptions(timeZone: Self.utc)
        var follower = ActivityWatchFollower(engine: try store.engine(), transport: server, options: options)
        let first = try follower.poll(now: Date(timeIntervalSince1970: Self.t0 + 95))
        // The window in front (firefox, 3 s so far) is not decided yet.
        #expect(first.stored == 2)
        #expect(try Self.stored(store.engine()) == ["0 firefox", "62 Alacritty"])

        server.windows[3].duration = 40
        server.windows.append((Self.t0 + 132, 10, "code"))
        // A new follower (a restart): the checkpoint is the store's newest switch.
        var restarted = ActivityWatchFollower(engine: try store.engine(), transport: server, options: options)
        let second = try restarted.poll(now: Date(timeIntervalSince1970: Self.t0 + 145))
        #expect(second.stored == 2 && second.alreadyStored == 1)
        #expect(try Self.stored(store.engine()) == ["0 firefox", "62 Alacritty", "92 firefox", "132 code"])
        let again = try restarted.poll(now: Date(timeIntervalSince1970: Self.t0 + 146))
        #expect(again.stored == 0)

        server.away = true
        #expect(throws: ActivityWatchUnreachable.self) { _ = try restarted.poll(now: Date(timeIntervalSince1970: Self.t0 + 150)) }
    }

    @Test func desktopFilesAreReadAsMenusReadThem() throws {
        let text = """
            [Desktop Entry]
            Type=Application
            Name=Firefox Web Browser
            Name[fr]=Navigateur
            Exec=env MOZ_X=1 /usr/lib/firefox/firefox %u
            StartupWMClass=firefox
            Icon=firefox

            [Desktop Action new-window]
            Name=New Window
            Exec=firefox --new-window
            """
        let firefox = try #require(DesktopApplications.parse(text, id: "firefox.desktop"))
        #expect(firefox.name == "Firefox Web Browser" && firefox.command == "env MOZ_X=1 /usr/lib/firefox/firefox")
        #expect(firefox.app == "firefox" && firefox.isApp("Firefox"))
        let nautilus = try #require(DesktopApplications.parse("[Desktop Entry]\nType=Application\nName=Files\nExec=nautilus --new-window %U\n",
                                                               id: "org.gnome.Nautilus.desktop"))
        #expect(nautilus.app == "nautilus" && nautilus.isApp("org.gnome.Nautilus") && nautilus.isApp("Nautilus"))
        #expect(DesktopApplications.parse("[Desktop Entry]\nType=Application\nName=X\nExec=x\nNoDisplay=true\n", id: "x.desktop") == nil)
        #expect(DesktopApplications.parse("[Desktop Entry]\nType=Link\nName=X\nURL=https://x\n", id: "x.desktop") == nil)
        #expect(DesktopApplications.directories(environment: ["HOME": "/h", "XDG_DATA_DIRS": "/a:/b"])
                == ["/h/.local/share/applications", "/a/applications", "/b/applications"])
    }

    @Test func theMenuListsLaunchableSuggestionsFirstThenEveryApplication() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        for day in 0 ..< 10 {
            let morning = Self.t0 + Double(day) * 86_400
            try engine.donate(Donation(app: "firefox", intent: "open", date: Date(timeIntervalSince1970: morning), utcOffset: 0))
            try engine.donate(Donation(app: "zsh", intent: "git", parameters: ["subcommand": .string("status")],
                                       date: Date(timeIntervalSince1970: morning + 60), utcOffset: 0))
        }
        let applications = [
            DesktopApplication(id: "alacritty.desktop", name: "Alacritty", exec: "alacritty"),
            DesktopApplication(id: "firefox.desktop", name: "Firefox", exec: "firefox %u", startupWMClass: "firefox"),
        ]
        let menu = try engine.launcherMenu(user: Donation.defaultUser, at: Date(timeIntervalSince1970: Self.t0 + 10 * 86_400 - 30),
                                           applications: applications, developerMode: true)
        // The shell command is a suggestion too, but not one a launcher can start: left out.
        #expect(menu.map(\.text) == ["Firefox", "Alacritty"])
        #expect(menu.map(\.suggested) == [true, false])
        #expect(menu[0].donation.app == "firefox" && menu[1].donation.app == "alacritty")
        #expect(LauncherItem.named(menu[1].key, user: "default", applications: applications, date: Date())?.text == "Alacritty")
    }
}
