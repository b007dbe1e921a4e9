import Foundation
import GRDB
import GRDBSQLite
import ProactiveCore

// MARK: - Stored form of a donation

/// A donation as both stores hold it: the single place where a `Donation`
/// becomes columns and back.
///
/// - `date` is whole milliseconds since 1970 UTC (`date_ms`), plus the
///   written offset (`utc_offset`, nil for Unix-seconds input), so the
///   canonical line of a stored donation is the canonical line of the
///   donation that was appended (dates keep millisecond resolution).
/// - `parameters` and `context` are canonical JSON text (members sorted by
///   key, `JSONWriter`), so equal donations store equal bytes.
///
/// `validate` applies the same rules as the `v1_donations` CHECK
/// constraints, so both stores reject the same donations with the same
/// messages; SQLite's constraints remain the last line of defence.
package struct DonationRecord: Sendable, Hashable {
    package var user: String
    package var app: String
    package var intent: String
    package var parametersJSON: String
    package var dateMilliseconds: Int64
    package var utcOffset: Int?
    package var identifier: String?
    package var group: String?
    package var contextJSON: String
    package var count: Int
    /// What makes two donations the same donation (`DonationRecord+ContentKey.swift`).
    package var contentHash: Int64

    // MARK: Donation -> record

    /// Encodes and validates a donation.
    /// - Throws: `StoreError.invalidDonation` naming the field at fault.
    package init(_ donation: Donation) throws(StoreError) {
        func invalid(_ field: String, _ reason: String) -> StoreError {
            StoreError(.invalidDonation, "invalid donation (app \"\(donation.app)\", intent \"\(donation.intent)\"): \(field): \(reason)")
        }
        if donation.user.isEmpty { throw invalid("user", "must not be empty") }
        if let problem = IdentifierRules.bundleIdentifierProblem(donation.app) { throw invalid("app", problem) }
        if donation.intent.isEmpty { throw invalid("intent", "must not be empty") }
        if donation.identifier?.isEmpty == true { throw invalid("identifier", "must not be empty (use nil)") }
        if donation.group?.isEmpty == true { throw invalid("group", "must not be empty (use nil)") }
        for (field, text) in [("user", donation.user), ("intent", donation.intent), ("identifier", donation.identifier), ("group", donation.group)] {
            if let text, let problem = IdentifierRules.controlCharacterProblem(text) { throw invalid(field, problem) }
        }
        guard donation.count >= 1 else { throw invalid("count", "must be >= 1, found \(donation.count)") }
        guard donation.count <= DonationLineCodec.maximumCount else {
            throw invalid("count", "\(donation.count) is too large (at most \(DonationLineCodec.maximumCount))")
        }
        if !Timestamp.isSupported(donation.date.timeIntervalSince1970) {
            throw invalid("date", "\(donation.date.timeIntervalSince1970) s since 1970 is outside the supported years "
                          + "\(Timestamp.supportedYears.lowerBound)-\(Timestamp.supportedYears.upperBound) (UTC)")
        }
        if let offset = donation.utcOffset, abs(offset) > Self.maximumOffsetSeconds {
            throw invalid("utcOffset", "\(offset) s is beyond +/-18 hours")
        }
        for (name, value) in donation.parameters {
            guard !name.isEmpty else { throw invalid("parameters", "a parameter name is empty") }
            if case let .double(number) = value, !number.isFinite {
                throw invalid("parameters.\(name)", "\(number) is not a finite number")
            }
        }
        user = donation.user
        app = donation.app
        intent = donation.intent
        parametersJSON = Self.canonicalJSON(donation.parameters) { value, text in JSONWriter.append(value.json, to: &text) }
        dateMilliseconds = donation.millisecondsSince1970
        utcOffset = donation.utcOffset
        identifier = donation.identifier
        group = donation.group
        contextJSON = Self.canonicalJSON(donation.context) { value, text in JSONWriter.appendString(value, to: &text) }
        count = donation.count
        // Whatever entry point stored it, a donation must export as a line import accepts.
        // An upper bound of the canonical line first (strings escape to at most twice their
        // bytes once control characters are refused), the exact length only when it could be over.
        let strings = donation.user.utf8.count + donation.app.utf8.count + donation.intent.utf8.count
            + (donation.identifier?.utf8.count ?? 0) + (donation.group?.utf8.count ?? 0)
        let bound = parametersJSON.utf8.count + contextJSON.utf8.count + 2 * strings + 256  // no allocation on the import path
        if bound > DonationLineCodec.maximumLineBytes {
            let length = DonationLineCodec.encode(donation).utf8.count
            if length > DonationLineCodec.maximumLineBytes {
                throw invalid("line", "the canonical line is \(length) bytes, longer than the limit of \(DonationLineCodec.maximumLineBytes)")
            }
        }
        contentHash = Self.contentHash(user: user, app: app, intent: intent, parametersJSON: parametersJSON,
                                       dateMilliseconds: dateMilliseconds, utcOffset: utcOffset, identifier: identifier,
                                       group: group, contextJSON: contextJSON, count: count)
    }

    static let maximumOffsetSeconds = 18 * 3600
    /// `{"a":..,"b":..}` with members sorted by key (the import hot path:
    /// written directly, no intermediate `JSONValue` object).
    static func canonicalJSON<Value>(_ members: [String: Value], _ appendValue: (Value, inout String) -> Void) -> String {
        if members.isEmpty { return "{}" }
        var text = "{"
        text.reserveCapacity(16 + members.count * 24)
        var first = true
        for (key, value) in members.sorted(by: { $0.key < $1.key }) {
            if !first { text.append(",") }
            first = false
            JSONWriter.appendString(key, to: &text)
            text.append(":")
            appendValue(value, &text)
        }
        text.append("}")
        return text
    }

    // MARK: Record -> donation

    /// Decodes the stored JSON columns.
    /// - Throws: `StoreError.corrupt` when a column does not hold what the
    ///   store wrote (the file was edited by hand).
    package func donation() throws(StoreError) -> Donation {
        var parameters: [String: ParameterValue] = [:]
        for (name, value) in try Self.members(parametersJSON, column: "parameters", of: self) {
            do { parameters[name] = try ParameterValue(json: value) } catch {
                throw StoreError(.corrupt, "stored donation of \(app) at \(dateMilliseconds) ms: parameters.\(name): \(error.reason)")
            }
        }
        var context: [String: String] = [:]
        for (name, value) in try Self.members(contextJSON, column: "context", of: self) {
            guard case let .string(text) = value else {
                throw StoreError(.corrupt, "stored donation of \(app) at \(dateMilliseconds) ms: context.\(name) is not a string")
            }
            context[name] = text
        }
        return Donation(user: user, app: app, intent: intent, parameters: parameters, date: Date(millisecondsSince1970: dateMilliseconds),
                        utcOffset: utcOffset, identifier: identifier, group: group, context: context, count: count)
    }

    private static func members(_ text: String, column: String, of record: DonationRecord) throws(StoreError) -> [(String, JSONValue)] {
        if text == "{}" { return [] }
        let json: JSONValue
        do { json = try JSONParser.parse(text) } catch {
            throw StoreError(.corrupt, "stored donation of \(record.app) at \(record.dateMilliseconds) ms: \(column): \(error)")
        }
        guard case let .object(members) = json else {
            throw StoreError(.corrupt, "stored donation of \(record.app) at \(record.dateMilliseconds) ms: \(column) is not an object")
        }
        return members
    }

    // MARK: Time keys



    // MARK: SQLite columns

    /// The `donation` columns in the order `withBindings` binds and `init(row:)` reads.
    static let columns = "user, app, intent, parameters, date_ms, utc_offset, identifier, group_id, context, count, content_hash"

    /// Binds the record to a prepared `INSERT ... (columns) VALUES (?1 ... ?11)`
    /// straight through the SQLite C API and runs `body` (which steps the
    /// statement) while the bound text is alive. The text is copied into
    /// `scratch` and bound without a further copy (`SQLITE_STATIC`): on the
    /// import path GRDB's `StatementArguments` boxing and SQLite's
    /// per-value copies cost more than the b-tree work.
    func withBindings<Result>(to statement: SQLiteStatement, scratch: inout [UInt8], _ body: () -> Result) -> Result {
        scratch.removeAll(keepingCapacity: true)
        func add(_ text: String?) -> Int {
            if let text { scratch.append(contentsOf: text.utf8) }
            return scratch.count
        }
        let ends = (add(user), add(app), add(intent), add(parametersJSON), add(identifier), add(group), add(contextJSON))
        scratch.append(0)  // a valid pointer even when every text is empty
        return scratch.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            func text(_ column: Int32, _ start: Int, _ end: Int) {
                _ = sqlite3_bind_text(statement, column, base + start, Int32(end - start), nil)  // nil: SQLITE_STATIC
            }
            text(1, 0, ends.0)
            text(2, ends.0, ends.1)
            text(3, ends.1, ends.2)
            text(4, ends.2, ends.3)
            sqlite3_bind_int64(statement, 5, dateMilliseconds)
            if let utcOffset { sqlite3_bind_int64(statement, 6, Int64(utcOffset)) } else { sqlite3_bind_null(statement, 6) }
            if identifier != nil { text(7, ends.3, ends.4) } else { sqlite3_bind_null(statement, 7) }
            if group != nil { text(8, ends.4, ends.5) } else { sqlite3_bind_null(statement, 8) }
            text(9, ends.5, ends.6)
            sqlite3_bind_int64(statement, 10, Int64(count))
            sqlite3_bind_int64(statement, 11, contentHash)
            return body()
        }
    }

    /// Reads a row selected as `columns` (optionally followed by more columns).
    init(row: Row) {
        user = row[0]
        app = row[1]
        intent = row[2]
        parametersJSON = row[3]
        dateMilliseconds = row[4]
        utcOffset = row[5]
        identifier = row[6]
        group = row[7]
        contextJSON = row[8]
        count = row[9]
        // NULL only in a row written behind the store's back (the column is NULL-able, `DonationSchema.v9ContentKey`).
        contentHash = row[10] ?? Self.contentHash(user: user, app: app, intent: intent, parametersJSON: parametersJSON,
                                                  dateMilliseconds: dateMilliseconds, utcOffset: utcOffset, identifier: identifier,
                                                  group: group, contextJSON: contextJSON, count: count)
    }
}

// MARK: Stored columns (other stores)

extension DonationRecord {
    /// A record from the columns another store read back (PostgreSQL): no validation, as for `init(row:)`;
    /// `donation()` reports what does not decode. A missing content hash is computed.
    package init(user: String, app: String, intent: String, parametersJSON: String, dateMilliseconds: Int64, utcOffset: Int?,
                 identifier: String?, group: String?, contextJSON: String, count: Int, contentHash: Int64?) {
        self.user = user
        self.app = app
        self.intent = intent
        self.parametersJSON = parametersJSON
        self.dateMilliseconds = dateMilliseconds
        self.utcOffset = utcOffset
        self.identifier = identifier
        self.group = group
        self.contextJSON = contextJSON
        self.count = count
        self.contentHash = contentHash ?? Self.contentHash(user: user, app: app, intent: intent, parametersJSON: parametersJSON,
                                                           dateMilliseconds: dateMilliseconds, utcOffset: utcOffset, identifier: identifier,
                                                           group: group, contextJSON: contextJSON, count: count)
    }
}
