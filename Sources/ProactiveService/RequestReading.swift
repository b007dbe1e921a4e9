import Foundation
import Hummingbird
import NIOCore
import ProactiveCore
import ProactiveEngine

// MARK: - Query parameters and path parameters

/// What every controller reads from a request besides its body: the query's `user`, names checked as the donation
/// format checks them, path parameters, the `at` parameter, a body as text.
enum RequestReading {
    /// The `user` query parameter (default `Donation.defaultUser`); other parameters than `allowing` are refused.
    static func user(_ request: Request, allowing known: Set<String>) throws -> String {
        let query = request.uri.queryParameters
        if let unknown = query.first(where: { !known.contains(String($0.key)) }) {
            throw APIError.badRequest("unknown query parameter \"\(unknown.key)\"", field: String(unknown.key))
        }
        try checkNames(request)
        return query.get("user") ?? Donation.defaultUser
    }

    static func bodyText(_ request: Request, maxBody: Int) async throws -> String {
        let body = try await BodyReading.collect(request, maxBody: maxBody)
        guard let text = body.getString(at: body.readerIndex, length: body.readableBytes), !text.isEmpty else {
            throw APIError.badRequest("the body is empty or not UTF-8")
        }
        return text
    }

    /// A path parameter, percent-decoded; `app` must be a bundle identifier (`IdentifierRules`: no `/`,
    /// `%`, `\\`, `.` or `..`, so no encoded separator reaches another app's rows), any other name a
    /// non-empty text without control characters.
    /// - Throws: `APIError` 400 naming the parameter.
    static func pathParameter(_ context: ServiceRequestContext, _ name: String) throws -> String {
        let raw = try context.parameters.require(name)
        guard let value = raw.removingPercentEncoding, !value.isEmpty else { throw APIError.badRequest("must not be empty", field: name) }
        if let problem = name == "app" ? IdentifierRules.bundleIdentifierProblem(value) : IdentifierRules.controlCharacterProblem(value) {
            throw APIError.badRequest(problem, field: name)
        }
        return value
    }

    /// The query parameters that name a user or an app (`user`, `app`), checked as the donation format
    /// checks them (`IdentifierRules`): a present value breaking the rule is a 400 naming it.
    static func checkNames(_ request: Request) throws {
        let query = request.uri.queryParameters
        for value in query.getAll("user") {
            if let problem = IdentifierRules.userProblem(value) { throw APIError.badRequest(problem, field: "user") }
        }
        for value in query.getAll("app") {
            if let problem = IdentifierRules.bundleIdentifierProblem(value) { throw APIError.badRequest(problem, field: "app") }
        }
    }

    /// The `at` query parameter, or now.
    static func instant(_ request: Request) throws -> Date {
        _ = try user(request, allowing: ["at"])
        return try request.uri.queryParameters.get("at").map { try BodyReading.date($0, field: "at") } ?? Date()
    }
}

// MARK: - Reading bodies

enum BodyReading {
    /// The request's body, at most `maxBody` bytes.
    /// - Throws: the 413 of a larger body; `APIError` 400 `incomplete_body` when the body could not be
    ///   read to its end (the client closed or broke the connection mid-body): the client's fault, not the server's.
    static func collect(_ request: Request, maxBody: Int) async throws -> ByteBuffer {
        var request = request
        do {
            return try await request.collectBody(upTo: maxBody)
        } catch let error as any HTTPResponseError {
            throw error
        } catch {
            throw APIError(.badRequest, "incomplete_body", "the request body ended before it was complete (the connection closed or failed mid-body)")
        }
    }

    static func json(_ body: ByteBuffer) throws -> JSONValue {
        do {
            return try body.readableBytesView.withContiguousStorageIfAvailable { bytes in
                try JSONParser.parse(UnsafeRawBufferPointer(bytes))
            } ?? JSONParser.parse(String(buffer: body))
        } catch let error as JSONParseError {
            throw APIError(.badRequest, "invalid_json", error.description)
        }
    }

    /// What `lines` and `records` answer: each line's (record's) number and its donation, or why it was refused.
    typealias Numbered = [(line: Int, result: Result<Sent, DonationLineError>)]

    /// A donation as sent, with the user's zone its `timezone` states.
    struct Sent {
        var donation: Donation
        var timeZone: String?
    }

    /// JSON Lines: each non-blank line decoded on its own, numbered from 1 (lines are split on
    /// `\n` in the bytes, a trailing `\r` dropped; blank means only spaces and tabs).
    static func lines(_ body: ByteBuffer) -> Numbered {
        body.withUnsafeReadableBytes { all in
            var result: Numbered = []
            var number = 0
            var start = 0
            while start <= all.count {
                let end = all[start...].firstIndex(of: 0x0a) ?? all.count
                number += 1
                var last = end
                if last > start, all[last - 1] == 0x0d { last -= 1 }
                let line = all[start..<last]
                if !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { result.append((number, decode(line))) }
                start = end + 1
            }
            return result
        }
    }

    /// A JSON text sequence (RFC 7464, `application/json-seq`): each record is RS (0x1E), a JSON text
    /// and LF. Each record is decoded on its own without its RS and the whitespace around its text,
    /// numbered from 1 in the order of the RS bytes (an empty record, RS RS, is counted and skipped).
    /// Text before the first RS is not a record of the sequence: it is refused as record 1.
    static func records(_ body: ByteBuffer) -> Numbered {
        body.withUnsafeReadableBytes { all in
            var result: Numbered = []
            var number = 0
            func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d }
            for (index, record) in all.split(separator: 0x1e, omittingEmptySubsequences: false).enumerated() {
                guard let first = record.firstIndex(where: { !isBlank($0) }), let last = record.lastIndex(where: { !isBlank($0) }) else {
                    if index > 0 { number += 1 }
                    continue
                }
                number += 1
                if index == 0 {
                    result.append((number, .failure(DonationLineError(field: nil, reason: "a JSON text sequence record starts with RS (0x1E); this text has none"))))
                } else {
                    result.append((number, decode(record[first...last])))
                }
            }
            return result
        }
    }

    /// One donation from the bytes of a line or record; an unknown field refuses it (`donation(_:)`).
    private static func decode(_ bytes: Slice<UnsafeRawBufferPointer>) -> Result<Sent, DonationLineError> {
        Result { () throws(DonationLineError) in
            var extras = DonationLineCodec.LineExtras()
            let donation = try DonationLineCodec.decode(UnsafeRawBufferPointer(rebasing: bytes), extras: &extras)
            if let name = extras.unknownFields.first { throw DonationLineCodec.unknownField(name) }
            return Sent(donation: donation, timeZone: extras.timeZone)
        }
    }

    /// One donation object. The service refuses an unknown field (a misspelled `parameters` would
    /// otherwise be stored without its parameters), naming it and the field it is nearest to.
    static func donation(_ json: JSONValue) throws(DonationLineError) -> Sent {
        var extras = DonationLineCodec.LineExtras()
        let donation = try DonationLineCodec.decode(json, extras: &extras)
        if let name = extras.unknownFields.first { throw DonationLineCodec.unknownField(name) }
        return Sent(donation: donation, timeZone: extras.timeZone)
    }

    /// A date field or query parameter: an instant (an offset, `Z` or Unix seconds), or with `user` and
    /// `engine` a local time or a day read on that user's clock (`Engine.readDate`: a day is its local
    /// midnight). Without a user, a local time or day is refused (no clock says which instant it is).
    static func date(_ text: String, field: String, user: String? = nil, engine: Engine? = nil) throws -> Date {
        do {
            let written = try DateText.parse(text)
            if case let .instant(date, _) = written { return date }
            guard let user, let engine else {
                throw DonationLineError(field: field, reason: "\(text) has no offset and no user's clock reads it: give user, or an offset "
                                        + "such as \(text.count == 10 ? text + "T00:00:00Z" : text + "Z")")
            }
            return try engine.readDate(written, text: text, user: user, field: field).date
        } catch let error as DonationLineError {
            throw APIError.badRequest(error.reason, field: field)
        }
    }
}
