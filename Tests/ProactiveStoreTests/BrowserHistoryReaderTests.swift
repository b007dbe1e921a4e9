import Foundation
import GRDB
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

/// Small history databases with the browsers' own schemas (the columns and types Firefox 128
/// and Chromium 120 create), for the readers' tests and the fixtures of docs/DESKTOP.md.
enum BrowserFixtures {
    /// `moz_places` and `moz_historyvisits` as Firefox creates them (other tables left out).
    static let firefoxSchema = """
        CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url LONGVARCHAR, title LONGVARCHAR, rev_host LONGVARCHAR,
          visit_count INTEGER DEFAULT 0, hidden INTEGER DEFAULT 0 NOT NULL, typed INTEGER DEFAULT 0 NOT NULL,
          frecency INTEGER DEFAULT -1 NOT NULL, last_visit_date INTEGER, guid TEXT, foreign_count INTEGER DEFAULT 0 NOT NULL,
          url_hash INTEGER DEFAULT 0 NOT NULL, description TEXT, preview_image_url TEXT, site_name TEXT, origin_id INTEGER,
          recalc_frecency INTEGER NOT NULL DEFAULT 0, alt_frecency INTEGER, recalc_alt_frecency INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE moz_historyvisits (id INTEGER PRIMARY KEY, from_visit INTEGER, place_id INTEGER, visit_date INTEGER,
          visit_type INTEGER, session INTEGER, source INTEGER DEFAULT 0 NOT NULL, triggeringPlaceId INTEGER);
        """
    /// `urls` and `visits` as Chromium creates them.
    static let chromiumSchema = """
        CREATE TABLE meta(key LONGVARCHAR NOT NULL UNIQUE PRIMARY KEY, value LONGVARCHAR);
        CREATE TABLE urls(id INTEGER PRIMARY KEY AUTOINCREMENT,url LONGVARCHAR,title LONGVARCHAR,visit_count INTEGER DEFAULT 0 NOT NULL,
          typed_count INTEGER DEFAULT 0 NOT NULL,last_visit_time INTEGER NOT NULL,hidden INTEGER DEFAULT 0 NOT NULL);
        CREATE TABLE visits(id INTEGER PRIMARY KEY AUTOINCREMENT,url INTEGER NOT NULL,visit_time INTEGER NOT NULL,from_visit INTEGER,
          external_referrer_url TEXT,transition INTEGER DEFAULT 0 NOT NULL,segment_id INTEGER,visit_duration INTEGER DEFAULT 0 NOT NULL,
          incremented_omnibox_typed_score BOOLEAN DEFAULT FALSE NOT NULL,opener_visit INTEGER,originator_cache_guid TEXT,
          originator_visit_id INTEGER,originator_from_visit INTEGER,originator_opener_visit INTEGER,is_known_to_sync BOOLEAN DEFAULT FALSE NOT NULL,
          consider_for_ntp_most_visited BOOLEAN DEFAULT FALSE NOT NULL,visited_link_id INTEGER DEFAULT 0 NOT NULL,app_id TEXT);
        """

    /// One visit: seconds since 1970, URL, Firefox visit_type or Chromium transition.
    struct Visit {
        var seconds: Int64
        var url: String
        var type: Int64
    }

    /// Writes a Firefox `places.sqlite` holding `visits` (WAL mode, as Firefox keeps it).
    static func firefox(_ path: String, _ visits: [Visit]) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: firefoxSchema)
            var places: [String: Int64] = [:]
            for visit in visits {
                let place: Int64
                if let known = places[visit.url] { place = known } else {
                    try db.execute(sql: "INSERT INTO moz_places (url, rev_host, guid) VALUES (?, '', hex(randomblob(6)))", arguments: [visit.url])
                    place = db.lastInsertedRowID
                    places[visit.url] = place
                }
                try db.execute(sql: "INSERT INTO moz_historyvisits (place_id, visit_date, visit_type, session) VALUES (?, ?, ?, 0)",
                               arguments: [place, visit.seconds * 1_000_000, visit.type])
            }
        }
        try queue.close()
    }

    /// Writes a Chromium `History` holding `visits` (times since 1601 in microseconds).
    static func chromium(_ path: String, _ visits: [Visit]) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: chromiumSchema)
            try db.execute(sql: "INSERT INTO meta VALUES ('version', '66')")
            var urls: [String: Int64] = [:]
            for visit in visits {
                let microseconds = (visit.seconds + 11_644_473_600) * 1_000_000
                let id: Int64
                if let known = urls[visit.url] { id = known } else {
                    try db.execute(sql: "INSERT INTO urls (url, title, last_visit_time) VALUES (?, '', ?)", arguments: [visit.url, microseconds])
                    id = db.lastInsertedRowID
                    urls[visit.url] = id
                }
                try db.execute(sql: "INSERT INTO visits (url, visit_time, transition) VALUES (?, ?, ?)", arguments: [id, microseconds, visit.type])
            }
        }
        try queue.close()
    }
}

@Suite("Browser history reader")
struct BrowserHistoryReaderTests {
    static let zone = TimeZone(identifier: "Europe/Berlin")!
    static let t0: Int64 = 1_733_472_000  // 2024-12-06T08:00:00Z

    static func read(_ path: String, _ browser: BrowserKind, foldWindow: TimeInterval = 1800) throws -> (DeviceLogSummary, [Donation]) {
        var donations: [Donation] = []
        let summary = try BrowserHistoryReader.read(path: path, browser: browser,
                                                    options: BrowserHistoryOptions(timeZone: zone, foldWindow: foldWindow)) { donations.append($0) }
        return (summary, donations)
    }

    static func sites(_ donations: [Donation]) -> [String] {
        donations.map { donation in
            guard case let .string(site)? = donation.parameters["site"] else { return "?" }
            return "\(Int64(donation.date.timeIntervalSince1970) - t0) \(site)"
        }
    }

    @Test func firefoxKeepsTypedAndLinkVisitsAndFoldsReloadsRedirectsAndRepeats() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("places.sqlite")
        try BrowserFixtures.firefox(path, [
            .init(seconds: Self.t0, url: "https://www.github.com/me", type: 2),             // typed
            .init(seconds: Self.t0 + 5, url: "https://github.com/me/repo", type: 1),        // same site: folded
            .init(seconds: Self.t0 + 9, url: "https://github.com/me/repo", type: 9),        // reload
            .init(seconds: Self.t0 + 60, url: "http://news.example.org/", type: 3),         // bookmark
            .init(seconds: Self.t0 + 61, url: "https://news.example.org/a", type: 5),       // permanent redirect
            .init(seconds: Self.t0 + 62, url: "https://ads.example.net/frame", type: 8),    // framed link
            .init(seconds: Self.t0 + 70, url: "about:preferences", type: 2),                // not http(s)
            .init(seconds: Self.t0 + 3000, url: "https://news.example.org/b", type: 1),     // 49 min idle: counts again
        ])
        let (summary, donations) = try Self.read(path, .firefox)
        #expect(Self.sites(donations) == ["0 github.com", "60 news.example.org", "3000 news.example.org"])
        #expect(donations[0].app == "firefox" && donations[0].intent == "visit" && donations[0].utcOffset == 3600)
        #expect(summary.rowsRead == 8 && summary.kept == 3)
        #expect(summary.dropped == [BrowserHistoryReader.sameSiteReason: 1, "reload (folded into the visit before it)": 1,
                                    "redirect (folded into the visit before it)": 1])
        #expect(summary.skipped == ["link in a frame (visit_type 8)": 1, "not an http(s) page (about)": 1])
        // Read without a -wal beside it: nothing is written next to the file.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["places.sqlite"])
    }

    @Test func chromiumReadsMicrosecondsSince1601AndTransitionQualifiers() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("History")
        try BrowserFixtures.chromium(path, [
            .init(seconds: Self.t0, url: "https://mail.example.com/", type: 1 | 0x3000_0000),            // typed, chain start+end
            .init(seconds: Self.t0 + 1, url: "https://accounts.example.com/", type: 0 | 0x8000_0000),   // server redirect
            .init(seconds: Self.t0 + 30, url: "https://docs.example.com/d/1", type: 0),                  // link
            .init(seconds: Self.t0 + 31, url: "https://docs.example.com/frame", type: 3),                // auto subframe
            .init(seconds: Self.t0 + 40, url: "https://docs.example.com/d/1", type: 8),                  // reload
        ])
        let (summary, donations) = try Self.read(path, .chromium)
        #expect(Self.sites(donations) == ["0 mail.example.com", "30 docs.example.com"])
        #expect(summary.dropped == ["redirect (folded into the visit before it)": 1, "reload (folded into the visit before it)": 1])
        #expect(summary.skipped == ["subframe (transition 3)": 1])
    }

    @Test func aDatabaseTheBrowserStillHoldsIsReadWithItsLogAndNothingIsWrittenBeside() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("places.sqlite")
        try BrowserFixtures.firefox(path, [.init(seconds: Self.t0, url: "https://a.example/", type: 2)])
        // The browser is running: WAL mode with a visit only in the log, the file locked exclusively.
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode=WAL; PRAGMA locking_mode=EXCLUSIVE") }
        let browser = try DatabaseQueue(path: path, configuration: configuration)
        try browser.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint=0")
            try db.execute(sql: "INSERT INTO moz_places (url, rev_host) VALUES ('https://b.example/', '')")
            try db.execute(sql: "INSERT INTO moz_historyvisits (place_id, visit_date, visit_type) VALUES (?, ?, 2)",
                           arguments: [db.lastInsertedRowID, (Self.t0 + 60) * 1_000_000])
        }
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(before.contains("places.sqlite-wal"))
        let (_, donations) = try Self.read(path, .firefox)
        #expect(Self.sites(donations) == ["0 a.example", "60 b.example"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == before)
        try browser.close()
    }

    @Test func wrongFilesAndBadRowsAreNamed() throws {
        let directory = try TemporaryDirectory()
        let chromium = directory.file("History")
        try BrowserFixtures.chromium(chromium, [.init(seconds: Self.t0, url: "https://a.example/", type: 1)])
        #expect(throws: StoreError.self) { _ = try Self.read(chromium, .firefox) }
        do {
            _ = try Self.read(chromium, .firefox)
        } catch {
            #expect("\(error)".contains("not a firefox history database (no table moz_historyvisits)"))
        }
        let queue = try DatabaseQueue(path: chromium)
        try queue.write { db in try db.execute(sql: "INSERT INTO visits (url, visit_time, transition) VALUES (999, 13370000000000000, 1)") }
        try queue.close()
        let (summary, donations) = try Self.read(chromium, .chromium)
        #expect(donations.count == 1)
        #expect(summary.problems.map(\.description) == ["visits row 2: url: no page with that id"])
    }
}
