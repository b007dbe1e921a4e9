import CLibPQ
import Foundation

// MARK: - One libpq connection

/// A connection to a PostgreSQL server through libpq: synchronous, like SQLite's calls (each
/// statement blocks the calling thread until the server answers, or until `location.timeout`
/// passes). Not thread-safe: its owner (`PostgresStoreDatabase`'s pool) lends it to one call at a time.
///
/// Every wait for the server is bounded: connecting (`PQconnectStartParams` and `PQconnectPoll`)
/// and each statement (sent with `PQsendQueryParams` on a non-blocking socket, answered through
/// `poll`) give up after `location.timeout`. A connection that timed out or that libpq reports
/// lost (`CONNECTION_BAD`) is `isBroken` for good: its owner drops it and connects anew.
final class PostgresConnection {
    private let connection: OpaquePointer
    private let location: PostgresLocation
    /// A statement timed out or the connection was lost: it must not be used again.
    private(set) var isBroken = false

    /// Connects to `location`, waiting at most `location.timeout`.
    /// - Throws: `PostgresServerError` with libpq's reason, `unavailable` set, when the server
    ///   cannot be reached, refuses, or does not answer in time.
    init(_ location: PostgresLocation) throws {
        self.location = location
        var settings: [(String, String)] = [("user", location.username), ("port", String(location.port)),
                                            ("client_encoding", "UTF8")]
        if let socketFolder = location.socketFolder { settings.append(("host", socketFolder)) }
        if let host = location.host { settings.append(("host", host)) }
        if let password = location.password { settings.append(("password", password)) }
        if let database = location.database { settings.append(("dbname", database)) }
        if let sslMode = location.sslMode { settings.append(("sslmode", sslMode)) }
        let deadline = ContinuousClock.now + location.timeout
        let started = Self.withCStrings(settings.map(\.0)) { keywords in
            Self.withCStrings(settings.map(\.1)) { values in PQconnectStartParams(keywords, values, 0) }
        }
        guard let started else { throw PostgresServerError(message: "out of memory opening a connection") }
        // Checked before `connection` is set: an initializer that throws after that runs `deinit`.
        func failed(_ reason: String) -> PostgresServerError {
            PQfinish(started)
            return Self.unavailable(location, reason)
        }
        // libpq's asynchronous connection: poll the socket for what PQconnectPoll asks, until OK or FAILED.
        var status = PQstatus(started) == CONNECTION_BAD ? PGRES_POLLING_FAILED : PGRES_POLLING_WRITING
        while status != PGRES_POLLING_OK {
            if status == PGRES_POLLING_FAILED { throw failed(Self.trimmed(PQerrorMessage(started))) }
            switch Self.pollSocket(PQsocket(started), reading: status == PGRES_POLLING_READING, writing: status == PGRES_POLLING_WRITING,
                             until: deadline) {
            case .ready: status = PQconnectPoll(started)
            case .timedOut: throw failed("no answer while connecting within \(Self.seconds(location.timeout))")
            case .failed(let reason): throw failed(reason)
            }
        }
        connection = started
        // Notices (such as "already exists, skipping") are not errors: not printed to stderr.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        // Sending never blocks: a statement's parameters larger than the socket's buffer are flushed as `poll` allows.
        PQsetnonblocking(connection, 1)
    }

    deinit { PQfinish(connection) }

    /// The server process serving this connection (`pg_backend_pid()`).
    var backendPID: Int32 { PQbackendPID(connection) }

    /// Whether the connection can be lent out: not broken, libpq says it is up, and the server sent
    /// nothing while it was idle (a terminated backend or a server shutting down sends an error and
    /// closes the socket, which makes it readable; a healthy idle connection is never sent anything,
    /// as nothing here listens). One `poll` with no wait, no round trip.
    var isIdleAndHealthy: Bool {
        guard !isBroken, PQstatus(connection) == CONNECTION_OK else { return false }
        var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 0
    }

    /// Runs one statement with its parameters (text format, typed) and returns its rows (text format).
    /// - Parameter bounded: false waits for the answer however long it takes (maintenance such as
    ///   `VACUUM FULL`); true (the default) gives up after `location.timeout`.
    /// - Throws: `PostgresServerError` with the server's message, SQLSTATE and constraint; with
    ///   `unavailable` set (and the connection `isBroken`) when the server did not answer in time or
    ///   the connection was lost.
    func run(_ query: PostgresQuery, bounded: Bool = true) throws -> PostgresResult {
        guard !isBroken else { throw Self.unavailable(location, "the connection was lost earlier") }
        let deadline: ContinuousClock.Instant? = bounded ? ContinuousClock.now + location.timeout : nil
        let values = query.binds.values
        let types = values.map { $0.type }
        let formats = values.map { $0.bytes == nil ? Int32(0) : 1 }
        let lengths = values.map { Int32($0.bytes?.count ?? 0) }
        let owned: [UnsafeMutablePointer<CChar>?] = values.map { value in
            if let bytes = value.bytes {
                let copy = malloc(max(bytes.count, 1))!
                bytes.withUnsafeBytes { source in if let base = source.baseAddress { copy.copyMemory(from: base, byteCount: source.count) } }
                return copy.assumingMemoryBound(to: CChar.self)
            }
            return value.text.map { strdup($0) }
        }
        defer { owned.forEach { free($0) } }
        let pointers = owned.map { UnsafePointer($0) }
        guard PQsendQueryParams(connection, query.sql, Int32(values.count), types, pointers, lengths, formats, 0) == 1 else {
            throw lost(query)
        }
        // Send what is still buffered, reading meanwhile (the server may answer before it has read everything).
        while true {
            let flushed = PQflush(connection)
            if flushed == 0 { break }
            if flushed < 0 { throw lost(query) }
            try waitForServer(reading: true, writing: true, until: deadline, query)
            guard PQconsumeInput(connection) == 1 else { throw lost(query) }
        }
        // Every result of the statement, until libpq's NULL: the error if there is one, else the last.
        var answer: PostgresResult?
        var failure: PostgresServerError?
        while true {
            while PQisBusy(connection) == 1 {
                try waitForServer(reading: true, writing: false, until: deadline, query)
                guard PQconsumeInput(connection) == 1 else { throw lost(query) }
            }
            guard let result = PQgetResult(connection) else { break }
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                answer = PostgresResult(result)
            default:
                func field(_ code: Character) -> String? {
                    PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
                }
                failure = failure ?? PostgresServerError(message: field("M") ?? Self.trimmed(PQresultErrorMessage(result)),
                                                         sqlState: field("C"), constraint: field("n"))
            }
        }
        if PQstatus(connection) == CONNECTION_BAD { throw lost(query, failure?.message) }
        if let failure { throw failure }
        guard let answer else { throw lost(query) }
        return answer
    }

    /// Marks the connection broken and says why `query` failed: the connection is lost (libpq's
    /// message, or `reason`), so nothing more can be asked on it.
    private func lost(_ query: PostgresQuery, _ reason: String? = nil) -> PostgresServerError {
        isBroken = true
        var reason = reason ?? Self.trimmed(PQerrorMessage(connection))
        if query.sql == "COMMIT" { reason += "; the transaction may or may not have been committed" }
        return Self.unavailable(location, reason)
    }

    /// Waits until the socket is ready or `deadline` passes.
    /// - Throws: what `lost` says when it timed out or the socket failed.
    private func waitForServer(reading: Bool, writing: Bool, until deadline: ContinuousClock.Instant?, _ query: PostgresQuery) throws {
        switch Self.pollSocket(PQsocket(connection), reading: reading, writing: writing, until: deadline) {
        case .ready: return
        case .timedOut: throw lost(query, "no answer within \(Self.seconds(location.timeout))")
        case .failed(let reason): throw lost(query, reason)
        }
    }

    private enum Readiness { case ready, timedOut, failed(String) }

    /// `poll` on `socket` for reading and/or writing until `deadline` (nil: no deadline), resumed after a signal.
    private static func pollSocket(_ socket: Int32, reading: Bool, writing: Bool, until deadline: ContinuousClock.Instant?) -> Readiness {
        guard socket >= 0 else { return .failed("the connection has no socket") }
        var descriptor = pollfd(fd: socket, events: Int16((reading ? POLLIN : 0) | (writing ? POLLOUT : 0)), revents: 0)
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                if left <= .zero { return .timedOut }
                let (seconds, attoseconds) = left.components
                milliseconds = Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
            }
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return .ready }  // readable, writable, or POLLERR/POLLHUP: libpq's next call finds which
            if ready == 0 { continue }  // the deadline, checked at the top
            if errno != EINTR { return .failed("poll: " + String(cString: strerror(errno))) }
        }
    }

    /// The error of a server that cannot be reached now: the URL (password hidden) and the reason.
    /// libpq's multi-line reasons ("...failed: Connection refused\n\tIs the server running...") on one line.
    private static func unavailable(_ location: PostgresLocation, _ reason: String) -> PostgresServerError {
        let reason = reason.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        return PostgresServerError(message: "\(location.displayURL) cannot be reached now (\(reason)); the connection is made again on the next call",
                                   unavailable: true)
    }

    private static func seconds(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "unknown libpq error"
    }

    /// Calls `body` with `strings` as a NULL-terminated array of C strings.
    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

/// An error libpq or the server reported: the message, and when the server sent them its SQLSTATE
/// and the constraint it names. `unavailable`: the server could not be reached or did not answer
/// in time (the message names the URL, password hidden), not an error of the statement.
struct PostgresServerError: Error, CustomStringConvertible {
    var message: String
    var sqlState: String?
    var constraint: String?
    var unavailable = false

    var description: String { message }
}

// MARK: - Statements

/// SQL text with numbered parameters (`$1`, `$2`, ...). A string literal's interpolations become
/// parameters, in order:
///
/// ```swift
/// let query: PostgresQuery = "SELECT id FROM donation WHERE app = \(app) AND identifier = \(identifier)"
/// // sql: "SELECT id FROM donation WHERE app = $1 AND identifier = $2", binds: [app, identifier]
/// ```
/// `\(unescaped: text)` puts `text` in the SQL as it is (column lists, never values).
struct PostgresQuery: ExpressibleByStringInterpolation {
    var sql: String
    var binds: PostgresBindings

    /// SQL text and its parameters, numbered by the caller.
    init(unsafeSQL sql: String, binds: PostgresBindings = PostgresBindings()) {
        self.sql = sql
        self.binds = binds
    }

    init(stringLiteral value: String) { self.init(unsafeSQL: value) }

    init(stringInterpolation: StringInterpolation) {
        self.init(unsafeSQL: stringInterpolation.sql, binds: stringInterpolation.binds)
    }

    struct StringInterpolation: StringInterpolationProtocol {
        var sql = ""
        var binds = PostgresBindings()

        init(literalCapacity: Int, interpolationCount: Int) { sql.reserveCapacity(literalCapacity + 3 * interpolationCount) }

        mutating func appendLiteral(_ literal: String) { sql += literal }

        mutating func appendInterpolation(_ value: some PostgresBindable) {
            binds.append(value)
            sql += "$\(binds.count)"
        }

        /// An optional value as one parameter (NULL when nil), stated so that the compiler does not
        /// take it for an optional interpolated by mistake.
        mutating func appendInterpolation<Wrapped: PostgresBindable>(_ value: Wrapped?) {
            binds.append(value)
            sql += "$\(binds.count)"
        }

        mutating func appendInterpolation(unescaped text: String) { sql += text }
    }
}

/// A statement's parameter values, in order.
struct PostgresBindings {
    fileprivate(set) var values: [PostgresValue] = []

    var count: Int { values.count }

    mutating func append(_ value: any PostgresBindable) { values.append(value.postgresValue) }
}

/// One parameter as libpq takes it: its type's OID and its text (nil: NULL), or its bytes in binary format.
struct PostgresValue {
    var type: Oid
    var text: String?
    var bytes: [UInt8]?
}

/// A Swift value that can be a statement parameter.
protocol PostgresBindable {
    /// The PostgreSQL type's OID (`pg_type.oid`), also for a NULL of this type.
    static var postgresType: Oid { get }
    var postgresValue: PostgresValue { get }
}

extension PostgresBindable where Self: LosslessStringConvertible {
    var postgresValue: PostgresValue { PostgresValue(type: Self.postgresType, text: description) }
}

extension String: PostgresBindable { static var postgresType: Oid { 25 } }  // text
extension Int64: PostgresBindable { static var postgresType: Oid { 20 } }  // bigint
extension Int: PostgresBindable { static var postgresType: Oid { 20 } }  // bigint
extension Int32: PostgresBindable { static var postgresType: Oid { 23 } }  // integer
extension Bool: PostgresBindable {  // boolean
    static var postgresType: Oid { 16 }
    var postgresValue: PostgresValue { PostgresValue(type: Self.postgresType, text: self ? "t" : "f") }
}

/// Bytes as `bytea`, sent in binary format.
struct PostgresBytes: PostgresBindable {
    var bytes: [UInt8]
    static var postgresType: Oid { 17 }
    var postgresValue: PostgresValue { PostgresValue(type: Self.postgresType, bytes: bytes) }
}

extension Array: PostgresBindable where Element == String {  // text[]
    static var postgresType: Oid { PostgresArray.textArray }
    var postgresValue: PostgresValue { PostgresArray(self).postgresValue }
}

/// A one-dimensional array parameter in text format (`{"a",NULL,"b"}`), a nil element as NULL:
/// `text[]`, `bigint[]` or `integer[]` by its initializer. What `unnest($1::text[], ...)` reads.
struct PostgresArray: PostgresBindable {
    static let textArray: Oid = 1009
    static let bigintArray: Oid = 1016
    static let integerArray: Oid = 1007
    /// Only a NULL of an unknown array type uses it; a value carries its own type.
    static var postgresType: Oid { 0 }
    let type: Oid
    let text: String

    init(_ values: [String?]) {
        type = Self.textArray
        text = Self.literal(values) { element in
            "\"" + element.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
    }

    init(_ values: [Int64?]) {
        type = Self.bigintArray
        text = Self.literal(values) { String($0) }
    }

    init(_ values: [Int32?]) {
        type = Self.integerArray
        text = Self.literal(values) { String($0) }
    }

    var postgresValue: PostgresValue { PostgresValue(type: type, text: text) }

    private static func literal<Element>(_ values: [Element?], _ element: (Element) -> String) -> String {
        var text = "{"
        for (index, value) in values.enumerated() {
            if index > 0 { text += "," }
            text += value.map(element) ?? "NULL"
        }
        return text + "}"
    }
}

extension Optional: PostgresBindable where Wrapped: PostgresBindable {
    static var postgresType: Oid { Wrapped.postgresType }
    var postgresValue: PostgresValue { self?.postgresValue ?? PostgresValue(type: Wrapped.postgresType) }
}

// MARK: - Results

/// A statement's rows (copied out of libpq's result) and the command's count of changed rows.
struct PostgresResult {
    var rows: [PostgresRow]
    /// How many rows an INSERT, UPDATE or DELETE changed (0 for other commands).
    var changed: Int

    fileprivate init(_ result: OpaquePointer) {
        let columns = PQnfields(result)
        rows = (0 ..< PQntuples(result)).map { row in
            PostgresRow(cells: (0 ..< columns).map { column in
                PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            })
        }
        changed = Int(String(cString: PQcmdTuples(result))) ?? 0
    }
}

/// One row: its cells in text format (nil: NULL).
struct PostgresRow {
    var cells: [String?]

    var count: Int { cells.count }

    /// Cell `index` read as `T`.
    /// - Throws: `PostgresDecodingError` when it is NULL for a non-optional `T`, or not a `T`.
    func decode<T: PostgresDecodable>(_ index: Int, as type: T.Type = T.self) throws -> T {
        guard cells.indices.contains(index) else { throw PostgresDecodingError(column: index, reason: "no such column") }
        return try T(postgresText: cells[index], column: index)
    }

    /// The first cell read as `T`.
    func decode<T: PostgresDecodable>(_ type: T.Type) throws -> T { try decode(0, as: type) }
}

/// A cell that could not be read as the type asked for.
struct PostgresDecodingError: Error, CustomStringConvertible {
    var column: Int
    var reason: String

    var description: String { "column \(column + 1) of the result: \(reason)" }
}

/// A Swift value read from a cell in text format.
protocol PostgresDecodable {
    init(postgresText text: String?, column: Int) throws
}

extension PostgresDecodable where Self: LosslessStringConvertible {
    init(postgresText text: String?, column: Int) throws {
        guard let text else { throw PostgresDecodingError(column: column, reason: "NULL where a \(Self.self) was expected") }
        guard let value = Self(text) else { throw PostgresDecodingError(column: column, reason: "'\(text)' is not a \(Self.self)") }
        self = value
    }
}

extension String: PostgresDecodable {}
extension Int64: PostgresDecodable {}
extension Int: PostgresDecodable {}
extension Int32: PostgresDecodable {}
extension Bool: PostgresDecodable {
    init(postgresText text: String?, column: Int) throws {
        switch text {
        case "t": self = true
        case "f": self = false
        default: throw PostgresDecodingError(column: column, reason: "\(text ?? "NULL") is not a boolean")
        }
    }
}

extension PostgresBytes: PostgresDecodable {
    /// `bytea` in its hex output form (`\x0a1b...`, the server's default `bytea_output`).
    init(postgresText text: String?, column: Int) throws {
        let invalid = PostgresDecodingError(column: column, reason: "not bytea in hex form")
        guard let text, text.hasPrefix("\\x") else { throw invalid }
        let digits = Array(text.utf8.dropFirst(2))
        guard digits.count % 2 == 0 else { throw invalid }
        func nibble(_ digit: UInt8) throws -> UInt8 {
            switch digit {
            case UInt8(ascii: "0") ... UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
            case UInt8(ascii: "a") ... UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A") ... UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
            default: throw invalid
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            bytes.append(try nibble(digits[index]) << 4 | nibble(digits[index + 1]))
            index += 2
        }
        self.bytes = bytes
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    init(postgresText text: String?, column: Int) throws {
        self = try text.map { try Wrapped(postgresText: $0, column: column) }
    }
}
