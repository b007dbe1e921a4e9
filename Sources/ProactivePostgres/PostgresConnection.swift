import CLibPQ
import Foundation

// MARK: - One libpq connection

/// A connection to a PostgreSQL server through libpq: synchronous, like SQLite's calls (each
/// statement blocks the calling thread until the server answers). Not thread-safe: its owner
/// (`PostgresStoreDatabase`) runs one call at a time.
final class PostgresConnection {
    private let connection: OpaquePointer

    /// Connects to `location`.
    /// - Throws: `PostgresServerError` with libpq's reason when the server cannot be reached or refuses.
    init(_ location: PostgresLocation) throws {
        var settings: [(String, String)] = [("user", location.username), ("port", String(location.port)),
                                            ("client_encoding", "UTF8")]
        if let socketFolder = location.socketFolder { settings.append(("host", socketFolder)) }
        if let host = location.host { settings.append(("host", host)) }
        if let password = location.password { settings.append(("password", password)) }
        if let database = location.database { settings.append(("dbname", database)) }
        if let sslMode = location.sslMode { settings.append(("sslmode", sslMode)) }
        let opened = Self.withCStrings(settings.map(\.0)) { keywords in
            Self.withCStrings(settings.map(\.1)) { values in PQconnectdbParams(keywords, values, 0) }
        }
        guard let opened else { throw PostgresServerError(message: "out of memory opening a connection") }
        // Checked before `connection` is set: an initializer that throws after that runs `deinit`.
        guard PQstatus(opened) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(opened))
            PQfinish(opened)
            throw PostgresServerError(message: message)
        }
        connection = opened
        // Notices (such as "already exists, skipping") are not errors: not printed to stderr.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
    }

    deinit { PQfinish(connection) }

    /// Runs one statement with its parameters (text format, typed) and returns its rows (text format).
    /// - Throws: `PostgresServerError` with the server's message, SQLSTATE and constraint.
    func run(_ query: PostgresQuery) throws -> PostgresResult {
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
        guard let result = PQexecParams(connection, query.sql, Int32(values.count), types, pointers, lengths, formats, 0) else {
            throw PostgresServerError(message: Self.trimmed(PQerrorMessage(connection)))
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgresResult(result)
        default:
            func field(_ code: Character) -> String? {
                PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
            }
            throw PostgresServerError(message: field("M") ?? Self.trimmed(PQresultErrorMessage(result)),
                                      sqlState: field("C"), constraint: field("n"))
        }
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
/// and the constraint it names.
struct PostgresServerError: Error, CustomStringConvertible {
    var message: String
    var sqlState: String?
    var constraint: String?

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
    static var postgresType: Oid { 1009 }
    var postgresValue: PostgresValue {
        let elements = map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
        return PostgresValue(type: Self.postgresType, text: "{" + elements.joined(separator: ",") + "}")
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
