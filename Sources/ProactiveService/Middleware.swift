import Foundation
import Hummingbird
import Logging
import NIOCore
import ProactiveEngine

// MARK: - The request context

/// Hummingbird's context plus who the request's credential acts as.
public struct ServiceRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by `CredentialMiddleware`; `.administrator` only for the owner's credential.
    public var access: StoreAccess = .app("")
    /// The connection the request came on (closed after a refused body: `ErrorMiddleware`).
    public let channel: any Channel
    /// Codable answers are written by the engine's JSON writer (`JSONResponseEncoder`).
    public var responseEncoder: JSONResponseEncoder { JSONResponseEncoder() }
    /// JSON bodies are read into Decodable types by `JSONRequestDecoder` (`request.decode(as:context:)`).
    public var requestDecoder: JSONRequestDecoder { JSONRequestDecoder() }
    /// The largest body a route reads (413 above it): the service's `Configuration.maxBody` (`BodyLimitMiddleware`).
    public var maxUploadSize = ProactiveService.Configuration().maxBody

    public init(source: Source) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// Refuses an app credential (403), as the CLI refuses `--as-app` for owner-only commands.
    func requireOwner(to operation: String) throws {
        do { try access.requireAdministrator(to: operation) } catch { throw APIError.from(error) }
    }
}

// MARK: - Body size

/// Sets each request's `maxUploadSize` to the service's `Configuration.maxBody`, and answers 413 at once when
/// `Content-Length` declares more (without waiting for a body that may never come).
struct BodyLimitMiddleware: RouterMiddleware {
    let maxBody: Int

    func handle(_ request: Request, context: ServiceRequestContext,
                next: (Request, ServiceRequestContext) async throws -> Response) async throws -> Response {
        // A declared length over the limit is refused before any of the body is awaited (the client may never send it).
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > maxBody {
            throw APIError(.contentTooLarge, "too_large", "the body is larger than the server's --max-body (Content-Length \(declared) > \(maxBody) bytes)")
        }
        var context = context
        context.maxUploadSize = maxBody
        return try await next(request, context)
    }
}

// MARK: - Credentials

/// Every route but `/healthz` and `/readyz` needs `Authorization: Bearer CREDENTIAL`: 401 when
/// it is missing or unknown; 503 when the store's credentials cannot be read (nothing is granted
/// then): `database_unavailable` with `Retry-After` while the database is away, else
/// `credentials_unavailable`. The credential itself is never logged.
struct CredentialMiddleware: RouterMiddleware {
    let credentials: CredentialStore
    var logger = Logger(label: "proactive.serve")

    func handle(_ request: Request, context: ServiceRequestContext,
                next: (Request, ServiceRequestContext) async throws -> Response) async throws -> Response {
        if request.uri.path == "/healthz" || request.uri.path == "/readyz" { return try await next(request, context) }
        // Every write acknowledged before the request arrived is seen: a look at the store's marks
        // sent since then serves the credential check and the answer (`StoreFreshness`).
        return try await StoreFreshness.$since.withValue(.now) { try await check(request, context: context, next: next) }
    }

    private func check(_ request: Request, context: ServiceRequestContext,
                       next: (Request, ServiceRequestContext) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            throw APIError(.unauthorized, "unauthorized", "missing credential: send Authorization: Bearer <credential>")
        }
        guard let credential = Self.credential(in: header) else { throw Self.unknown }
        let found: StoreAccess?
        do { found = try credentials.access(for: credential) } catch {
            // A database away is its usual 503 (with Retry-After); anything else that keeps the credentials from being read is one too.
            let answer = APIError.from(error)
            if answer.status == .serviceUnavailable { throw answer }
            logger.error("cannot check credentials", metadata: ["error": "\(error.message)"])
            throw APIError(.serviceUnavailable, "credentials_unavailable", "the credentials cannot be checked now; try again")
        }
        guard let access = found else { throw Self.unknown }
        var context = context
        context.access = access
        return try await next(request, context)
    }

    static let unknown = APIError(.unauthorized, "unauthorized", "unknown credential")

    /// The credential of an `Authorization` value: after `Bearer` (any case) and a space, without
    /// the spaces around it; nil for another scheme. The usual `Bearer pk_...` is taken as it is.
    static func credential(in header: String) -> String? {
        let prefix = "Bearer "
        if header.utf8.count == prefix.utf8.count + 67, header.hasPrefix(prefix) {
            return String(header.dropFirst(prefix.count))  // trimming changes nothing the credential check would accept
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return trimmed(parts[1])
    }

    /// `text` without leading and trailing spaces and tabs (what `CharacterSet.whitespaces` trims: Unicode
    /// space separators and tab), without Foundation's bridging on every request.
    static func trimmed(_ text: Substring) -> String {
        func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(scalars[first...last])
    }
}

// MARK: - Errors

/// Turns every error into a JSON body with its status (`APIError`); logs server faults. After a 413
/// the connection is closed (`Connection: close`): the rest of the refused body may still be on its
/// way, or never come, and waiting for it would hold the connection until the client gave up.
struct ErrorMiddleware: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: ServiceRequestContext,
                next: (Request, ServiceRequestContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let api = APIError.from(error)
            if api.status.code >= 500 {
                logger.error("request failed", metadata: ["method": "\(request.method)", "path": "\(request.uri.path)", "error": "\(api.message)"])
            } else {
                logger.debug("request refused", metadata: ["method": "\(request.method)", "path": "\(request.uri.path)",
                                                           "status": "\(api.status.code)", "code": "\(api.code)"])
            }
            return api.status == .contentTooLarge ? Self.closingConnection(api, channel: context.channel) : api.response
        }
    }

    /// `error`'s answer with `Connection: close`, the connection closed once it is sent: the output
    /// at once (the client reads the answer, then the end of the stream), the whole connection a second
    /// later, so a client still sending the body gets the answer rather than a reset.
    static func closingConnection(_ error: APIError, channel: any Channel) -> Response {
        var response = error.response
        response.headers[.connection] = "close"
        let body = Response.jsonBody(error.json)
        response.body = ResponseBody(contentLength: body.readableBytes) { writer in
            try await writer.write(body)
            try await writer.finish(nil)
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        }
        return response
    }
}

// MARK: - Metrics

/// Counts requests and times them per route (the route template, never the raw path).
struct MetricsMiddleware: RouterMiddleware {
    let metrics: ServiceMetrics

    func handle(_ request: Request, context: ServiceRequestContext,
                next: (Request, ServiceRequestContext) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        metrics.record(route: context.endpointPath ?? "unmatched", method: request.method.rawValue, status: Int(response.status.code),
                       nanoseconds: nanoseconds)
        return response
    }
}

// MARK: - Another method on a known path

/// A request whose path is a route's but whose method is not one the path answers: 405 with the path's
/// methods in `Allow` (after the credential check, as a route's answer would be).
struct MethodNotAllowedMiddleware: RouterMiddleware {
    /// Each route path, its segments (a `{name}` segment matches any one) and the methods it answers.
    let paths: [(path: String, segments: [Substring], methods: [String])]
    /// The order methods are listed in `Allow`.
    static let order = ["GET", "HEAD", "PUT", "POST", "PATCH", "DELETE"]

    init(routes: [(method: HTTPRequest.Method, path: String)]) {
        var methods: [String: [String]] = [:]
        var order: [String] = []
        for route in routes {
            if methods[route.path] == nil { order.append(route.path) }
            methods[route.path, default: []].append(route.method.rawValue)
        }
        paths = order.map { path in
            (path, path.split(separator: "/"), methods[path]!.sorted { (Self.order.firstIndex(of: $0) ?? 9) < (Self.order.firstIndex(of: $1) ?? 9) })
        }
    }

    func handle(_ request: Request, context: ServiceRequestContext,
                next: (Request, ServiceRequestContext) async throws -> Response) async throws -> Response {
        let method = request.method.rawValue
        let segments = request.uri.path.split(separator: "/")
        if let known = paths.first(where: { Self.matches($0.segments, segments) }), !known.methods.contains(method) {
            let allow = known.methods.joined(separator: ", ")
            var error = APIError(.methodNotAllowed, "method_not_allowed", "\(known.path) answers \(allow), not \(method)")
            error.allow = allow
            throw error
        }
        return try await next(request, context)
    }

    static func matches(_ template: [Substring], _ segments: [Substring]) -> Bool {
        template.count == segments.count && zip(template, segments).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
    }
}
