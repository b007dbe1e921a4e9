import Foundation
import Hummingbird
import HummingbirdTesting
import ProactiveCore
import ProactiveEngine
import ProactiveService
import ProactiveStore

/// A service over a store file in a fresh temporary directory, with the owner's
/// credential and two app credentials (coffee and weather).
final class ServiceFixture: @unchecked Sendable {
    let directory: URL
    let path: String
    let database: ProactiveDatabase
    let credentials: CredentialStore
    let service: ProactiveService
    let owner: String
    let coffee: String
    let weather: String

    init(configure: (inout ProactiveService.Configuration) -> Void = { _ in }) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-service-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("store.sqlite").path
        database = try ProactiveDatabase(path: path)
        try SQLitePrivacyStore(database: database).setRetention(.keepAll)
        credentials = CredentialStore(storePath: path)
        owner = try credentials.ensureOwnerCredential().credential
        coffee = try credentials.add(app: "com.example.coffee")
        weather = try credentials.add(app: "com.example.weather")
        var configuration = ProactiveService.Configuration()
        configure(&configuration)
        service = ProactiveService(database: database, credentials: credentials, configuration: configuration)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Runs `body` against the router (no sockets).
    func test<Value: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        let app = Application(router: service.router())
        return try await app.test(.router, body)
    }

    /// How many donations the store holds.
    func storedCount() throws -> Int {
        try SQLiteDonationStore(database: database).statistics(matching: .everything).rows
    }

    /// The bundled sample log (user "me", four weeks) as JSON Lines.
    static func sampleLines() throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("datasets/sample/donations.jsonl")
        return try String(contentsOf: url, encoding: .utf8)
    }
}

extension TestClientProtocol {
    /// A request with a bearer credential (nil: none) and a text body.
    @discardableResult
    func send(_ method: HTTPRequest.Method, _ uri: String, credential: String?, body: String? = nil,
              contentType: String = "application/json") async throws -> (status: HTTPResponse.Status, json: JSONValue?, text: String) {
        var headers: HTTPFields = [:]
        if let credential { headers[.authorization] = "Bearer \(credential)" }
        if body != nil { headers[.contentType] = contentType }
        return try await execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) { response in
            let text = String(buffer: response.body)
            return (response.status, try? JSONParser.parse(text), text)
        }
    }
}

extension JSONValue {
    /// `value["error"]?["field"]` as a string.
    func string(_ path: String...) -> String? {
        var value: JSONValue? = self
        for key in path { value = value?[key] }
        if case let .string(text)? = value { return text }
        return nil
    }

    func int(_ path: String...) -> Int? {
        var value: JSONValue? = self
        for key in path { value = value?[key] }
        if case let .number(_, integer?)? = value { return Int(integer) }
        return nil
    }

    var items: [JSONValue] {
        if case let .array(items) = self { return items }
        return []
    }
}

/// One donation as a JSON line.
func donationLine(app: String = "com.example.coffee", intent: String = "OrderCoffeeIntent", item: String = "latte",
                  date: String = "2026-11-20T07:15:00-08:00", identifier: String? = nil, user: String = "me") -> String {
    JSONWriter.string(.object([
        ("user", .string(user)), ("app", .string(app)), ("intent", .string(intent)),
        ("parameters", .object([("item", .string(item))])), ("date", .string(date)),
    ] + (identifier.map { [("identifier", JSONValue.string($0))] } ?? [])))
}
