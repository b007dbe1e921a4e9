import Foundation
import GRDB
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

/// The bundled device logs (datasets/device-logs, plaso test data).
enum DeviceLogs {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("datasets/device-logs")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}

@Suite("Android Digital Wellbeing reader")
struct AndroidUsageReaderTests {
    static let newYork = TimeZone(identifier: "America/New_York")!
    static let launcher = "com.google.android.apps.nexuslauncher"
    /// 2023-06-01T12:00:00Z in milliseconds.
    static let noon: Int64 = 1_685_620_800_000

    static func event(_ minutes: Double, _ package: String, type: Int = AndroidUsageEvent.activityResumed) -> AndroidUsageEvent {
        AndroidUsageEvent(timestampMilliseconds: noon + Int64(minutes * 60_000), type: type, package: package)
    }

    /// Runs the filter and returns the (minute, package) of each kept launch.
    static func kept(_ events: [AndroidUsageEvent], _ options: AndroidUsageOptions) -> [String] {
        var filter = AndroidLaunchFilter(options: options)
        return events.compactMap { event in
            guard case let .launch(donation) = filter.offer(event) else { return nil }
            let minute = Int((donation.date.timeIntervalSince1970 * 1000 - Double(noon)) / 60_000)
            return "\(minute) \(donation.app)"
        }
    }

    // MARK: The deduplication rule (pure)

    @Test func defaultRuleKeepsNewPackagesAndReturnsAfterThirtyIdleMinutes() {
        let events = [
            Self.event(0, "a"),
            Self.event(1, Self.launcher),
            Self.event(2, "a"),            // same package, 1 min after the launcher: repeat
            Self.event(3, "b"),            // new package: kept
            Self.event(40, Self.launcher), // 37 min idle, but launcher is left out
            Self.event(41, "b"),           // same as last kept, only 1 min after the launcher: repeat
            Self.event(75, "b"),           // 34 min after the last foreground event: kept
            Self.event(80, "com.android.systemui"),
            Self.event(81, "a"),           // new package
            Self.event(82, "a", type: 2),  // a pause is not a launch
            Self.event(200, "a"),          // 119 min idle: kept again
        ]
        #expect(Self.kept(events, AndroidUsageOptions(timeZone: Self.newYork)) == ["0 a", "3 b", "75 b", "81 a", "200 a"])
    }

    @Test func rulesAndWindowAreOptions() {
        let events = [Self.event(0, "a"), Self.event(10, "a"), Self.event(12, Self.launcher), Self.event(25, "a"), Self.event(26, "b")]
        let zone = Self.newYork
        #expect(Self.kept(events, AndroidUsageOptions(timeZone: zone, deduplication: .none)) == ["0 a", "10 a", "25 a", "26 b"])
        #expect(Self.kept(events, AndroidUsageOptions(timeZone: zone, deduplication: .packageChange)) == ["0 a", "26 b"])
        // A 5-minute window: 10 min after the first "a" is a new launch; 13 min after the launcher too.
        #expect(Self.kept(events, AndroidUsageOptions(timeZone: zone, deduplication: .packageChangeOrIdle(window: 300)))
                == ["0 a", "10 a", "25 a", "26 b"])
        #expect(Self.kept(events, AndroidUsageOptions(timeZone: zone, keepLauncher: true, deduplication: .packageChange))
                == ["0 a", "12 \(Self.launcher)", "25 a", "26 b"])
    }

    @Test func donationsReadInTheZoneAndCarryUnlockContextWhenAsked() throws {
        var filter = AndroidLaunchFilter(options: AndroidUsageOptions(user: "phone", timeZone: Self.newYork, unlockWindow: 60))
        _ = filter.offer(Self.event(0, "android", type: AndroidUsageEvent.keyguardHidden))
        guard case let .launch(first) = filter.offer(Self.event(0.5, "a")) else { Issue.record("not kept"); return }
        guard case let .launch(second) = filter.offer(Self.event(5, "b")) else { Issue.record("not kept"); return }
        #expect(first.user == "phone" && first.intent == "open" && first.app == "a")
        #expect(first.utcOffset == -4 * 3600)  // EDT in June
        #expect(first.context == ["unlocked": "recent"])
        #expect(second.context.isEmpty)
        #expect(DonationLineCodec.encode(first).contains("\"date\":\"2023-06-01T08:00:30-04:00\""))
    }

    // MARK: A synthetic database

    @Test func readsASyntheticDatabaseAndNamesBadRows() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("app_usage")
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE packages (_id INTEGER PRIMARY KEY, package_name TEXT);
                CREATE TABLE events (_id INTEGER PRIMARY KEY, timestamp INTEGER, type INTEGER NOT NULL, package_id INTEGER NOT NULL);
                INSERT INTO packages VALUES (1, 'com.example.a'), (2, 'com.google.android.apps.nexuslauncher'), (3, 'com.example.b');
                INSERT INTO events VALUES (10, \(Self.noon), 1, 1), (11, \(Self.noon + 1000), 2, 1), (12, \(Self.noon + 2000), 1, 2),
                    (13, \(Self.noon + 3000), 1, 1), (14, \(Self.noon + 4000), 1, 3), (15, NULL, 1, 3), (16, \(Self.noon + 5000), 1, 99),
                    (17, -5000, 1, 3);
                """)
        }
        try queue.close()
        var donations: [Donation] = []
        let summary = try AndroidUsageReader.read(path: path, options: AndroidUsageOptions(timeZone: Self.newYork)) { donations.append($0) }
        #expect(donations.map(\.app) == ["com.example.a", "com.example.b"])
        #expect(summary.rowsRead == 8 && summary.kept == 2)
        #expect(summary.dropped == [AndroidLaunchFilter.launcherReason: 1,
                                    AndroidLaunchFilter.repeatReason + " (package change or 30 min idle)": 1])
        #expect(summary.skipped == ["event type 2 (ACTIVITY_PAUSED)": 1])
        #expect(summary.problemCount == 3)
        let problems = summary.problems.map(\.description)
        #expect(problems.contains { $0.hasPrefix("events row 15: timestamp: must be integer Unix milliseconds") })
        #expect(problems.contains("events row 16: package_id: no package with _id 99"))
        #expect(problems.contains { $0.hasPrefix("events row 17: timestamp: -5000 ms:") })
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
    }

    @Test func aDatabaseOfAnotherKindIsAnError() throws {
        let error = storeError { _ = try AndroidUsageReader.read(path: DeviceLogs.path("knowledgec-10.13.db"),
                                                                 options: AndroidUsageOptions(timeZone: Self.newYork)) { _ in } }
        #expect(error?.code == .io)
        #expect(error?.message.contains("no table events") == true)
        #expect(storeError { _ = try AndroidUsageReader.read(path: "/nonexistent/app_usage", options: AndroidUsageOptions(timeZone: Self.newYork)) { _ in } }?.code == .io)
    }

    // MARK: The real log

    @Test func realLogYieldsItsLaunches() throws {
        var donations: [Donation] = []
        let summary = try AndroidUsageReader.read(path: DeviceLogs.path("app_usage"),
                                                  options: AndroidUsageOptions(timeZone: Self.newYork)) { donations.append($0) }
        #expect(summary.rowsRead == 11_663)
        #expect(summary.kept == 700 && donations.count == 700)
        #expect(summary.dropped[AndroidLaunchFilter.launcherReason] == 1_154)  // 1,151 launcher + 3 System UI
        #expect(summary.skipped["event type 2 (ACTIVITY_PAUSED)"] == 2_872)
        #expect(summary.problemCount == 0)
        // Raw: events _id 9570, 1685392303291 ms, com.spotify.music (the first foreground event).
        let first = try #require(donations.first)
        #expect(first.app == "com.spotify.music")
        #expect(first.date == Date(timeIntervalSince1970: 1_685_392_303.291))
        #expect(DonationLineCodec.encode(first).contains("\"date\":\"2023-05-29T16:31:43.291-04:00\""))
        #expect(!donations.contains { $0.app == Self.launcher })
        #expect(zip(donations, donations.dropFirst()).allSatisfy { $0.date <= $1.date })
    }

    @Test func importsIntoAStore() throws {
        let store = InMemoryDonationStore()
        let result = try DonationImporter(store: store).importAndroidUsage(
            path: DeviceLogs.path("app_usage"), options: AndroidUsageOptions(user: "pixel", timeZone: Self.newYork))
        #expect(result.store.imported == 700)
        #expect(result.device.kept == 700)
        #expect(try store.users() == ["pixel"])
    }

    /// Issue 16: a foreground package name the store would refuse is a malformed row.
    @Test func aPackageNameTheStoreRefusesIsAMalformedRow() {
        let row: Row = ["id": 7, "timestamp": Self.noon, "type": AndroidUsageEvent.activityResumed, "package": "com.a b", "package_id": 3]
        guard case let .failure(problem) = AndroidUsageReader.event(from: row) else { Issue.record("accepted"); return }
        #expect(problem.description == "events row 7: package: a bundle identifier is printable ASCII without '/' or spaces (found U+0020 at character 6)")
    }
}
