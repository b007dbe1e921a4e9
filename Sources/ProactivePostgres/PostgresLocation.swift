import Foundation
import ProactiveStore

// MARK: - Where the database is

/// A `postgres://` URL read into what a connection needs.
///
/// ```
/// postgres://proactive@/proactive?host=/tmp/cluster        a Unix socket in /tmp/cluster (libpq's form)
/// postgres://app:secret@db.example.com:5433/proactive      TCP, no TLS (sslmode=disable)
/// ```
/// A `host` query item starting with `/` is the folder of the server's socket, which is
/// `.s.PGSQL.<port>` in it (port 5432 unless given), as libpq reads it. TLS is not
/// supported yet: `sslmode` may only be `disable` (or absent, over a socket).
///
/// Two options of Proactive's own (libpq does not read them):
/// ```
/// ...?host=/tmp/cluster&timeout=2.5     seconds to wait for the server (connecting, each statement; default 5)
/// ...?host=/tmp/cluster&pool=8          connections one open database makes at most (default 4)
/// ```
public struct PostgresLocation: Sendable, Equatable {
    public var username: String
    public var password: String?
    public var database: String?
    /// The socket file, for a Unix-socket connection.
    public var socketPath: String?
    /// The folder holding the socket (what libpq takes as `host`), for a Unix-socket connection.
    public var socketFolder: String?
    /// `sslmode` as given (only `disable` is accepted so far).
    public var sslMode: String?
    /// Host and port, for a TCP connection.
    public var host: String?
    public var port: Int
    /// How long a connection attempt, and each statement, may wait for the server before the call
    /// gives up (`?timeout=SECONDS`, default `defaultTimeout`).
    public var timeout: Duration
    /// How many connections one `PostgresStoreDatabase` opens at most (`?pool=N`, default `defaultPoolSize`).
    public var poolSize: Int
    /// The URL it was read from, password hidden (`redacted`): what messages name.
    public var displayURL: String

    public static let defaultTimeout: Duration = .seconds(5)
    public static let defaultPoolSize = 4

    /// Reads a URL.
    /// - Throws: `StoreError.invalidRequest` naming what is wrong (scheme, user, sslmode, port,
    ///   timeout, pool).
    public init(url text: String) throws(StoreError) {
        func invalid(_ reason: String) -> StoreError {
            StoreError(.invalidRequest, "database URL \(Self.redacted(text)): \(reason)")
        }
        displayURL = Self.redacted(text)
        guard let components = URLComponents(string: text) else { throw invalid("not a URL") }
        guard components.scheme == "postgres" || components.scheme == "postgresql" else {
            throw invalid("the scheme must be postgres:// or postgresql://")
        }
        guard let user = components.user, !user.isEmpty else { throw invalid("no user name (postgres://USER@...)") }
        username = user.removingPercentEncoding ?? user
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? nil : (path.removingPercentEncoding ?? path)
        port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw invalid("port \(port) is out of range") }
        let items = components.queryItems ?? []
        let socketFolder = items.last { $0.name == "host" }?.value
        sslMode = items.last { $0.name == "sslmode" }?.value
        if let sslMode, sslMode != "disable" {
            throw invalid("sslmode=\(sslMode) is not supported yet (use a Unix socket, or sslmode=disable on a trusted network)")
        }
        timeout = Self.defaultTimeout
        if let text = items.last(where: { $0.name == "timeout" })?.value {
            guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 86_400 else {
                throw invalid("timeout=\(text) is not a number of seconds above 0 (at most 86400)")
            }
            timeout = .milliseconds(max(1, Int64((seconds * 1000).rounded())))
        }
        poolSize = Self.defaultPoolSize
        if let text = items.last(where: { $0.name == "pool" })?.value {
            guard let size = Int(text), (1...1000).contains(size) else {
                throw invalid("pool=\(text) is not a number of connections from 1 to 1000")
            }
            poolSize = size
        }
        if let socketFolder, socketFolder.hasPrefix("/") {
            socketPath = socketFolder + "/.s.PGSQL.\(port)"
            self.socketFolder = socketFolder
            host = nil
        } else if let name = socketFolder ?? components.host, !name.isEmpty {
            guard sslMode == "disable" else {
                throw invalid("a TCP connection needs sslmode=disable (TLS is not supported yet)")
            }
            socketPath = nil
            self.socketFolder = nil
            host = name
        } else {
            throw invalid("no host: give one, or a socket folder as ?host=/path")
        }
    }

    /// The URL with its password replaced by `***`, for messages and logs.
    public static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }
}
