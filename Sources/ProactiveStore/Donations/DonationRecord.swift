import Foundation
import GRDB
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
struct DonationRecord: Sendable, Hashable {
    var user: String
    var app: String
    var intent: String
    var parametersJSON: String
    var dateMilliseconds: Int64
    var utcOffset: Int?
    var identifier: String?
    var group: String?
    var contextJSON: String
    var count: Int

    // MARK: Donation -> record

    /// Encodes and validates a donation.
    /// - Throws: `StoreError.invalidDonation` naming the field at fault.
    init(_ donation: Donation) throws(StoreError) {
        func invalid(_ field: String, _ reason: String) -> StoreError {
            StoreError(.invalidDonation, "invalid donation (app \"\(donation.app)\", intent \"\(donation.intent)\"): \(field): \(reason)")
        }
        for (field, value) in [("user", donation.user), ("app", donation.app), ("intent", donation.intent)] where value.isEmpty {
            throw invalid(field, "must not be empty")
        }
        if donation.identifier?.isEmpty == true { throw invalid("identifier", "must not be empty (use nil)") }
        if donation.group?.isEmpty == true { throw invalid("group", "must not be empty (use nil)") }
        guard donation.count >= 1 else { throw invalid("count", "must be >= 1, found \(donation.count)") }
        guard donation.count <= DonationLineCodec.maximumCount else {
            throw invalid("count", "\(donation.count) is too large (at most \(DonationLineCodec.maximumCount))")
        }
        do {
            _ = try Timestamp.validateUnixSeconds(donation.date.timeIntervalSince1970)
        } catch {
            throw invalid("date", error.reason)
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
        parametersJSON = Self.canonicalJSON(donation.parameters.mapValues(\.json))
        dateMilliseconds = donation.millisecondsSince1970
        utcOffset = donation.utcOffset
        identifier = donation.identifier
        group = donation.group
        contextJSON = Self.canonicalJSON(donation.context.mapValues { .string($0) })
        count = donation.count
    }

    static let maximumOffsetSeconds = 18 * 3600

    /// `{"a":..,"b":..}` with members sorted by key.
    static func canonicalJSON(_ members: [String: JSONValue]) -> String {
        if members.isEmpty { return "{}" }
        var text = ""
        JSONWriter.append(.object(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }), to: &text)
        return text
    }

    // MARK: Record -> donation

    /// Decodes the stored JSON columns.
    /// - Throws: `StoreError.corrupt` when a column does not hold what the
    ///   store wrote (the file was edited by hand).
    func donation() throws(StoreError) -> Donation {
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
        return Donation(user: user, app: app, intent: intent, parameters: parameters, date: Self.date(dateMilliseconds),
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

    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    /// Milliseconds since 1970 for a query bound; clamps instead of trapping
    /// on dates far outside the supported years.
    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        if value.isNaN { return 0 }
        if value >= 9.2e18 { return .max }
        if value <= -9.2e18 { return .min }
        return Int64(value)
    }

    // MARK: SQLite columns

    /// The `donation` columns in the order `arguments` binds and `init(row:)` reads.
    static let columns = "user, app, intent, parameters, date_ms, utc_offset, identifier, group_id, context, count"

    var arguments: StatementArguments {
        [user, app, intent, parametersJSON, dateMilliseconds, utcOffset, identifier, group, contextJSON, count]
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
    }
}
