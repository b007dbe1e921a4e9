import Foundation
import GRDB
import ProactiveCore

// MARK: - Browser history

/// The browsers whose history database is read.
package enum BrowserKind: String, Sendable, CaseIterable {
    /// Firefox's `places.sqlite`: `moz_historyvisits` joined to `moz_places`, microseconds since 1970.
    case firefox
    /// Chromium's (and Chrome's) `History`: `visits` joined to `urls`, microseconds since 1601-01-01.
    case chromium
}

/// How visits become donations.
package struct BrowserHistoryOptions: Sendable, Hashable {
    package var user: String
    package var timeZone: TimeZone
    /// A visit to the site of the previous kept visit is folded into it unless at least this many
    /// seconds passed since the previous visit of any site (default 30 minutes); 0 keeps every visit.
    package var foldWindow: TimeInterval

    package init(user: String = Donation.defaultUser, timeZone: TimeZone, foldWindow: TimeInterval = 30 * 60) {
        self.user = user
        self.timeZone = timeZone
        self.foldWindow = foldWindow
    }
}

/// One visit, read from either browser, before it is judged.
package struct BrowserVisit: Sendable, Hashable {
    /// Where it is in the database (`moz_historyvisits row 12`).
    package var row: String
    package var seconds: Double
    package var url: String
    package var kind: Kind

    /// What kind of navigation the visit was.
    package enum Kind: Sendable, Hashable {
        /// A link followed, an address typed, a bookmark opened: the person chose the site.
        case chosen(String)
        /// A reload or a redirect: the same navigation again, folded.
        case folded(String)
        /// Not a page the person opened (a frame, a download, an embedded resource).
        case skipped(String)
    }

    package init(row: String, seconds: Double, url: String, kind: Kind) {
        self.row = row
        self.seconds = seconds
        self.url = url
        self.kind = kind
    }
}

/// Reads a browser's history into `visit` donations of the site: app the
/// browser (`firefox`, `chromium`), intent `visit`, parameter `site` the host
/// (lower case, without `www.`), oldest first.
///
/// Typed, link and bookmark visits are kept; reloads and redirects are folded
/// (the visit that led to them stands for them); frames, embeds and downloads
/// are skipped; a visit to the same site as the previous kept one is folded
/// unless `foldWindow` passed. Only http and https pages count.
///
/// The database is opened read-only and never written beside, even while the
/// browser holds it: when a `-wal` file is next to it (the browser is running
/// or was not closed cleanly) the file and its log are copied to a private
/// temporary folder and read there, so recent visits still in the log are
/// read; otherwise it is opened as an immutable snapshot.
///
/// ```swift
/// let summary = try BrowserHistoryReader.read(path: "places.sqlite", browser: .firefox,
///                                             options: BrowserHistoryOptions(timeZone: .current)) { print($0) }
/// ```
package enum BrowserHistoryReader {
    package static let intent = "visit"
    package static let siteParameter = "site"
    package static let sameSiteReason = "same site as the previous kept visit"

    /// Seconds between 1601-01-01 and 1970-01-01 (Chromium's epoch).
    package static let chromiumEpochOffset: Double = 11_644_473_600

    /// Streams the database's visits to `emit`.
    ///
    /// - Throws: `StoreError.io` when the file is missing, not SQLite, or not this browser's
    ///   history; whatever `onProblem` or `emit` throws.
    package static func read(path: String, browser: BrowserKind, options: BrowserHistoryOptions,
                            onProblem: (DeviceLogProblem) throws -> Void = { _ in },
                            emit: (Donation) throws -> Void) throws -> DeviceLogSummary {
        let (queue, cleanup) = try open(path: path)
        defer { cleanup() }
        var summary = DeviceLogSummary(format: browser.rawValue)
        var filter = VisitFilter(options: options, browser: browser)
        do {
            try queue.read { db in
                let tables = try DeviceLogDatabase.tables(db)
                let (sql, required) = query(browser)
                for table in required where !tables.contains(table) {
                    throw DeviceLogDatabase.wrongKind(path, "not a \(browser.rawValue) history database (no table \(table))")
                }
                let cursor = try Row.fetchCursor(db, sql: sql)
                while let row = try cursor.next() {
                    summary.rowsRead += 1
                    switch visit(from: row, browser: browser) {
                    case let .failure(problem):
                        summary.record(problem)
                        try onProblem(problem)
                    case let .success(visit):
                        switch filter.offer(visit) {
                        case let .donation(donation):
                            summary.kept += 1
                            try emit(donation)
                        case let .dropped(reason): summary.drop(reason)
                        case let .skipped(reason): summary.skip(reason)
                        case let .problem(problem):
                            summary.record(problem)
                            try onProblem(problem)
                        }
                    }
                }
            }
        } catch let error as DatabaseError {
            throw StoreError.wrapping(error, while: "reading \(path)")
        }
        summary.notes.append("app \(browser.rawValue), intent visit (site); same site folded within \(Int(options.foldWindow / 60)) min; time zone \(options.timeZone.identifier)")
        return summary
    }

    /// Opens `path` without ever writing beside it (see the type's comment).
    static func open(path: String) throws -> (DatabaseQueue, () -> Void) {
        guard FileManager.default.fileExists(atPath: path + "-wal") else { return (try DeviceLogDatabase.openSnapshot(path: path), {}) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-history-\(UUID().uuidString)")
        let cleanup = { _ = try? FileManager.default.removeItem(at: folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o700])
            let copy = folder.appendingPathComponent("history.sqlite").path
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
            var configuration = Configuration()
            configuration.label = "browser-history"
            let queue = try DatabaseQueue(path: copy, configuration: configuration)
            _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            return (queue, cleanup)
        } catch {
            cleanup()
            throw StoreError(.io, "cannot read \(path): not a readable SQLite database with its -wal log (\(error))")
        }
    }

    static func query(_ browser: BrowserKind) -> (sql: String, tables: [String]) {
        switch browser {
        case .firefox:
            return ("""
                SELECT v.id AS id, v.visit_date AS time, v.visit_type AS type, p.url AS url
                FROM moz_historyvisits v LEFT JOIN moz_places p ON p.id = v.place_id
                ORDER BY v.visit_date, v.id
                """, ["moz_historyvisits", "moz_places"])
        case .chromium:
            return ("""
                SELECT v.id AS id, v.visit_time AS time, v.transition AS type, u.url AS url
                FROM visits v LEFT JOIN urls u ON u.id = v.url
                ORDER BY v.visit_time, v.id
                """, ["visits", "urls"])
        }
    }

    /// Validates one joined row and classifies its navigation.
    static func visit(from row: Row, browser: BrowserKind) -> Result<BrowserVisit, DeviceLogProblem> {
        let table = browser == .firefox ? "moz_historyvisits" : "visits"
        let id = Int64.fromDatabaseValue(row["id"] as DatabaseValue).map(String.init) ?? "?"
        let where_ = "\(table) row \(id)"
        func problem(_ field: String, _ reason: String) -> Result<BrowserVisit, DeviceLogProblem> {
            .failure(DeviceLogProblem(row: where_, error: DonationLineError(field: field, reason: reason)))
        }
        let timeField = browser == .firefox ? "visit_date" : "visit_time"
        let rawTime = row["time"] as DatabaseValue
        guard let microseconds = Int64.fromDatabaseValue(rawTime) else {
            return problem(timeField, "must be integer microseconds, found \(rawTime)")
        }
        let seconds = Double(microseconds) / 1_000_000 - (browser == .chromium ? chromiumEpochOffset : 0)
        do {
            _ = try Timestamp.validateUnixSeconds(seconds)
        } catch {
            return problem(timeField, "\(microseconds) µs: \(error.reason)")
        }
        let typeField = browser == .firefox ? "visit_type" : "transition"
        guard let type = Int64.fromDatabaseValue(row["type"] as DatabaseValue) else {
            return problem(typeField, "must be an integer, found \(row["type"] as DatabaseValue)")
        }
        guard let url = String.fromDatabaseValue(row["url"] as DatabaseValue) else {
            return problem(browser == .firefox ? "place_id" : "url", "no page with that id")
        }
        let kind = browser == .firefox ? firefoxKind(type) : chromiumKind(type)
        return .success(BrowserVisit(row: where_, seconds: seconds, url: url, kind: kind))
    }

    /// Firefox's `visit_type` (nsINavHistoryService TRANSITION_*).
    static func firefoxKind(_ type: Int64) -> BrowserVisit.Kind {
        switch type {
        case 1: .chosen("link")
        case 2: .chosen("typed")
        case 3: .chosen("bookmark")
        case 5, 6: .folded("redirect")
        case 9: .folded("reload")
        case 4: .skipped("embedded resource (visit_type 4)")
        case 7: .skipped("download (visit_type 7)")
        case 8: .skipped("link in a frame (visit_type 8)")
        default: .skipped("visit_type \(type)")
        }
    }

    /// Chromium's `transition`: the core type in the low byte, qualifiers in the high bits.
    static func chromiumKind(_ transition: Int64) -> BrowserVisit.Kind {
        let core = transition & 0xFF
        let redirect = transition & (0x4000_0000 | 0x8000_0000) != 0  // CLIENT_REDIRECT, SERVER_REDIRECT
        switch core {
        case 8: return .folded("reload")
        case 3, 4: return .skipped("subframe (transition \(core))")
        default: break
        }
        if redirect { return .folded("redirect") }
        switch core {
        case 0: return .chosen("link")
        case 1, 5, 9, 10: return .chosen("typed")
        case 2: return .chosen("bookmark")
        case 6: return .chosen("link")  // AUTO_TOPLEVEL
        case 7: return .chosen("link")  // FORM_SUBMIT
        default: return .skipped("transition \(core)")
        }
    }

    /// The site of an http(s) URL: its host in lower case without `www.`; nil for other schemes.
    package static func site(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", var host = components.host?.lowercased(), !host.isEmpty else { return nil }
        if host.hasPrefix("www.") { host.removeFirst(4) }
        return host
    }
}

// MARK: - Judging visits in order (pure)

/// Turns visits, in time order, into donations: chosen visits are kept, folded
/// and skipped ones counted, a repeat of the previous kept site folded within the window.
package struct VisitFilter: Sendable {
    package enum Decision: Sendable, Equatable {
        case donation(Donation)
        case dropped(String)
        case skipped(String)
        case problem(DeviceLogProblem)
    }

    package let options: BrowserHistoryOptions
    package let browser: BrowserKind
    private var lastSite: String?
    private var lastSeconds: Double?

    package init(options: BrowserHistoryOptions, browser: BrowserKind) {
        self.options = options
        self.browser = browser
    }

    package mutating func offer(_ visit: BrowserVisit) -> Decision {
        let previous = lastSeconds
        switch visit.kind {
        case let .skipped(reason): return .skipped(reason)
        case let .folded(reason):
            lastSeconds = visit.seconds
            return .dropped("\(reason) (folded into the visit before it)")
        case .chosen: break
        }
        guard let site = BrowserHistoryReader.site(of: visit.url) else {
            let scheme = URLComponents(string: visit.url)?.scheme ?? "no scheme"
            return .skipped("not an http(s) page (\(scheme))")
        }
        if let reason = IdentifierRules.controlCharacterProblem(site) {
            return .problem(DeviceLogProblem(row: visit.row, error: DonationLineError(field: "url", reason: reason)))
        }
        lastSeconds = visit.seconds
        if site == lastSite, let previous, visit.seconds - previous < options.foldWindow {
            return .dropped(BrowserHistoryReader.sameSiteReason)
        }
        lastSite = site
        let date = Date(timeIntervalSince1970: visit.seconds)
        return .donation(Donation(user: options.user, app: browser.rawValue, intent: BrowserHistoryReader.intent,
                                  parameters: [BrowserHistoryReader.siteParameter: .string(site)], date: date,
                                  utcOffset: options.timeZone.secondsFromGMT(for: date)))
    }
}
