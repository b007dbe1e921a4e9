import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine

// MARK: - Errors as the API answers them

/// A refusal with its HTTP status and a JSON body:
/// `{"error": {"status": 400, "code": "invalid_field", "message": "...", "field": "date", "line": 3}}`.
/// An `HTTPResponseError`: Hummingbird answers one thrown by a handler with `response(from:context:)`.
public struct APIError: HTTPResponseError, Sendable, Equatable {
    public var status: HTTPResponse.Status
    /// A stable category: `unauthorized`, `forbidden`, `invalid_json`, `invalid_field`, ...
    public var code: String
    public var message: String
    /// The field at fault (`date`, `parameters.size`, `k`), when one is.
    public var field: String?
    /// The line (JSON Lines) or item (JSON array, from 1) at fault, for batches.
    public var line: Int?
    /// For a 405: the methods the path answers (the `Allow` header).
    public var allow: String?
    /// For a 503 or 507: the seconds after which the request may be sent again (the `Retry-After` header).
    public var retryAfter: Int?

    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String, field: String? = nil, line: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.line = line
    }

    public static func badRequest(_ message: String, field: String? = nil, line: Int? = nil) -> APIError {
        APIError(.badRequest, field == nil ? "invalid_request" : "invalid_field", message, field: field, line: line)
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("status", .number(Double(status.code), integer: Int64(status.code))),
                                              ("code", .string(code)), ("message", .string(message))]
        if let field { members.append(("field", .string(field))) }
        if let line { members.append(("line", .number(Double(line), integer: Int64(line)))) }
        return .object([("error", .object(members))])
    }

    public var response: Response {
        var response = Response.json(json, status: status)
        if status == .unauthorized { response.headers[.wwwAuthenticate] = "Bearer" }
        if let allow { response.headers[.allow] = allow }
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }

    public func response(from request: Request, context: some RequestContext) -> Response { response }

    /// The `Retry-After` of a 503 answered while the database cannot be reached, in seconds.
    public static let databaseRetryAfter = 5

    /// The `Retry-After` of a 507 answered while the disk holding the store is full, in seconds.
    public static let diskFullRetryAfter = 60

    /// The API's answer to an error thrown by the store or the engine: `StoreError.unavailable`
    /// is a 503 `database_unavailable` with `Retry-After: databaseRetryAfter`.
    public static func from(_ error: any Error) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as StoreError:
            switch error.code {
            case .accessDenied: return APIError(.forbidden, "forbidden", error.message)
            case .duplicateIdentifier, .duplicateDonation: return APIError(.conflict, "duplicate", error.message)
            case .recordingPaused: return APIError(.conflict, "recording_paused", error.message + " (the device owner resumes it)")
            case .invalidDonation, .invalidRequest: return APIError(.badRequest, "invalid_request", error.message)
            case .busy: return APIError(.serviceUnavailable, "busy", error.message)
            case .unavailable:
                // The database is away (restarting, paused, the network cut): the request is worth sending again
                // soon, and the next one connects anew. No answer from a held model meanwhile (see docs/ARCHITECTURE.md).
                var answer = APIError(.serviceUnavailable, "database_unavailable", error.message)
                answer.retryAfter = databaseRetryAfter
                return answer
            case .diskFull:
                // Not the client's fault and not a bug: the same request may succeed once space is freed.
                var answer = APIError(HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), "disk_full", error.message)
                answer.retryAfter = diskFullRetryAfter
                return answer
            default: return APIError(.internalServerError, "store", error.message)
            }
        case let error as EngineError:
            switch error.code {
            case .noDonations: return APIError(.notFound, "no_donations", error.description)
            case .invalidRequest: return APIError.badRequest(error.description, field: error.field)
            default: return APIError(.internalServerError, error.code.rawValue, error.description)
            }
        case let error as FocusError:
            return APIError.badRequest(error.reason, field: error.field.isEmpty ? nil : error.field)
        case let error as DonationLineError:
            return APIError.badRequest(error.description, field: error.field)
        case let error as any HTTPResponseError:
            let status = error.status
            let message = status == .contentTooLarge ? "the body is larger than the server's --max-body" : status.reasonPhrase
            return APIError(status, status == .notFound ? "not_found" : status == .contentTooLarge ? "too_large" : "http_\(status.code)",
                            message)
        default:
            return APIError(.internalServerError, "internal", "\(error)")
        }
    }
}

// MARK: - JSON responses

extension Response {
    /// A JSON response written with the engine's own writer (`JSONWriter`).
    public static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        json(body: jsonBody(value), status: status)
    }

    /// A response whose body is already JSON text.
    public static func json(text: String, status: HTTPResponse.Status = .ok) -> Response {
        json(body: jsonBody(text), status: status)
    }

    /// A response whose body is JSON text already in a buffer (`jsonBody`).
    public static func json(body: ByteBuffer, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: body))
    }

    /// A JSON value as a response body: its text (`JSONWriter`, as bytes) and a newline.
    public static func jsonBody(_ value: JSONValue) -> ByteBuffer {
        var bytes = JSONWriter.bytes(value)
        bytes.append(0x0A)
        return ByteBuffer(bytes: bytes)
    }

    /// JSON text as a response body: the text and a newline.
    public static func jsonBody(_ text: String) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(text.utf8.count + 1)
        buffer.writeString(text)
        buffer.writeString("\n")
        return buffer
    }
}

extension JSONValue {
    static func int(_ value: Int) -> JSONValue { .number(Double(value), integer: Int64(value)) }
}
