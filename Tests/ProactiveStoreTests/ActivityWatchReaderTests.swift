import Foundation
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

@Suite("ActivityWatch reader")
struct ActivityWatchReaderTests {
    static let zone = TimeZone(identifier: "America/Chicago")!
    static let t0 = 1_733_472_000.0  // 2024-12-06T08:00:00Z

    static func window(_ seconds: Double, _ duration: Double, _ app: String) -> ActivityWatchEvent {
        ActivityWatchEvent(row: "e\(Int(seconds))", start: t0 + seconds, duration: duration, value: app)
    }

    static func kept(_ events: [ActivityWatchEvent], afk: [ActivityWatchEvent] = [], options: ActivityWatchOptions = ActivityWatchOptions(timeZone: zone)) -> [String] {
        var filter = ActivityWatchSwitchFilter(bucket: "w", options: options, afk: afk)
        return events.compactMap { event in
            guard case let .donation(donation) = filter.offer(event, final: true) else { return nil }
            return "\(Int(donation.date.timeIntervalSince1970 - t0)) \(donation.app)"
        }
    }

    @Test func switchesNeedTheDwellRepeatsFoldAndAwayTimeIsSkipped() {
        let events = [
            Self.window(0, 120, "firefox"),
            Self.window(120, 2, "Alacritty"),       // passed over (2 s < 5 s)
            Self.window(122, 60, "firefox"),        // same app as the last kept: folded
            Self.window(182, 30, "code"),
            Self.window(212, 10, "code"),           // another window of code: folded
            Self.window(600, 30, "i3lock"),         // starts while away
            Self.window(900, 40, "code"),           // back from away: counts again
            Self.window(4000, 10, "Visual Studio Code"),
        ]
        let afk = [ActivityWatchEvent(row: "a", start: Self.t0 + 300, duration: 500, value: "afk"),
                   ActivityWatchEvent(row: "b", start: Self.t0, duration: 300, value: "not-afk")]
        #expect(Self.kept(events, afk: afk) == ["0 firefox", "182 code", "900 code", "4000 Visual-Studio-Code"])
        #expect(Self.kept(events, afk: afk, options: ActivityWatchOptions(timeZone: Self.zone, minimumDwell: 1, keepAFK: true))
                == ["0 firefox", "120 Alacritty", "122 firefox", "182 code", "600 i3lock", "900 code", "4000 Visual-Studio-Code"])
    }

    @Test func anOpenWindowShorterThanTheDwellIsNotDecided() {
        var filter = ActivityWatchSwitchFilter(bucket: "w", options: ActivityWatchOptions(timeZone: Self.zone))
        #expect(filter.offer(Self.window(0, 2, "firefox"), final: false) == .open)
        guard case let .donation(donation) = filter.offer(Self.window(0, 6, "firefox"), final: false) else {
            Issue.record("not kept once past the dwell")
            return
        }
        #expect(donation.identifier == "activitywatch/w/\(Int64(Self.t0 * 1000))")
        #expect(donation.intent == "open" && donation.utcOffset == -6 * 3600)
    }

    @Test func anExportIsReadWithItsAFKBucketAndBadEventsAreNamed() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("aw-export.json", """
            {"buckets": {
              "aw-watcher-window_box": {"id": "aw-watcher-window_box", "type": "currentwindow", "hostname": "box", "events": [
                {"timestamp": "2024-12-06T08:05:00+00:00", "duration": 30.0, "data": {"app": "code", "title": "b"}},
                {"timestamp": "2024-12-06T08:04:00.250000+00:00", "duration": 1.5, "data": {"app": "Alacritty", "title": "x"}},
                {"timestamp": "not a time", "duration": 3.0, "data": {"app": "x"}},
                {"timestamp": "2024-12-06T08:00:00+00:00", "duration": 240.0, "data": {"title": "no app"}},
                {"timestamp": "2024-12-06T08:00:00+00:00", "duration": 240.0, "data": {"app": "firefox", "title": "a"}}
              ]},
              "aw-watcher-afk_box": {"id": "aw-watcher-afk_box", "type": "afkstatus", "hostname": "box", "events": [
                {"timestamp": "2024-12-06T08:00:00+00:00", "duration": 600.0, "data": {"status": "not-afk"}}
              ]},
              "aw-watcher-web-firefox": {"type": "web.tab.current", "hostname": "box", "events": [{"timestamp": "2024-12-06T08:00:00+00:00"}]}
            }}
            """)
        var donations: [Donation] = []
        let summary = try ActivityWatchExportReader.read(path: path, options: ActivityWatchOptions(timeZone: Self.zone)) { donations.append($0) }
        #expect(donations.map(\.app) == ["firefox", "code"])
        #expect(summary.kept == 2 && summary.rowsRead == 5)
        #expect(summary.problems.first?.description.hasPrefix("bucket aw-watcher-window_box event 3: timestamp: \"not a time\": ") == true)
        #expect(summary.problems.map(\.row) == ["bucket aw-watcher-window_box event 3", "bucket aw-watcher-window_box event 4"])
        #expect(summary.problems.last?.description == "bucket aw-watcher-window_box event 4: data.app: missing or not a string")
        #expect(summary.skipped == ["bucket of type web.tab.current (1 events)": 1])
        #expect(summary.dropped == ["in front for less than the minimum dwell (5 s)": 1])
    }

    @Test func aFileThatIsNotAnExportIsRefusedWithTheByte() throws {
        let directory = try TemporaryDirectory()
        let broken = try directory.write("broken.json", "{\"buckets\": {\"a\": [}")
        #expect(throws: StoreError.self) { _ = try ActivityWatchExportReader.read(path: broken, options: ActivityWatchOptions(timeZone: Self.zone)) { _ in } }
        let other = try directory.write("other.json", "[1, 2]")
        do {
            _ = try ActivityWatchExportReader.read(path: other, options: ActivityWatchOptions(timeZone: Self.zone)) { _ in }
            Issue.record("accepted")
        } catch {
            #expect("\(error)".contains("not an ActivityWatch export"))
        }
    }
}
