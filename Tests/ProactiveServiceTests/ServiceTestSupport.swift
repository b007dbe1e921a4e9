import Foundation
import Hummingbird
import ServiceLifecycle
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
        owner = try credentials.ensureOwnerCredential().credential!
        coffee = try credentials.add(app: "com.example.coffee")
        weather = try credentials.add(app: "com.example.weather")
        var configuration = ProactiveService.Configuration()
        configure(&configuration)
        service = ProactiveService(storage: SQLiteBackend(database), credentials: credentials, configuration: configuration)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Runs `body` against the service listening on a loopback port of its own (`buildApplication`, the
    /// application `proactive serve` runs, without the periodic saver), with a client for it.
    func test<Value: Sendable>(_ body: @Sendable (TestClient) async throws -> Value) async throws -> Value {
        try await live { _, client in try await body(client) }
    }

    /// How many donations the store holds.
    func storedCount() throws -> Int {
        try SQLiteDonationStore(database: database).statistics(matching: .everything).rows
    }

    /// Stores the bundled sample's intent definitions (as `proactive definitions add` does); returns them.
    @discardableResult
    func storeSampleDefinitions() throws -> [IntentDefinition] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("datasets/sample/definitions.json")
        let definitions = try IntentDefinitionSet.parse(try String(contentsOf: url, encoding: .utf8))
        try SQLiteIntentDefinitionStore(database: database).replace(with: definitions, apps: Set(definitions.map(\.app)))
        return definitions
    }

    /// The bundled sample log (user "me", four weeks) as JSON Lines.
    static func sampleLines() throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("datasets/sample/donations.jsonl")
        return try String(contentsOf: url, encoding: .utf8)
    }
}

extension TestClient {
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

/// A route's path template with a sample value in each `{name}` segment (what a client sends).
func samplePath(_ template: String) -> String {
    template.replacingOccurrences(of: "{app}", with: "com.example.coffee").replacingOccurrences(of: "{focus}", with: "work")
        .replacingOccurrences(of: "{user}", with: "me")
}

/// One donation as a JSON line.
func donationLine(app: String = "com.example.coffee", intent: String = "OrderCoffeeIntent", item: String = "latte",
                  date: String = "2026-11-20T07:15:00-08:00", identifier: String? = nil, user: String = "me") -> String {
    JSONWriter.string(.object([
        ("user", .string(user)), ("app", .string(app)), ("intent", .string(intent)),
        ("parameters", .object([("item", .string(item))])), ("date", .string(date)),
    ] + (identifier.map { [("identifier", JSONValue.string($0))] } ?? [])))
}

// MARK: - A live server on loopback

extension ServiceFixture {
    /// Runs `body` against the service listening on a loopback port of its own (port 0: the system's
    /// choice), with that port and a client for it; the application is shut down gracefully afterwards.
    func live<Value: Sendable>(_ body: @Sendable (_ port: Int, _ client: TestClient) async throws -> Value) async throws -> Value {
        try await serveLive(service, body)
    }
}

/// Runs `body` against `service` listening on a loopback port of its own (`buildApplication`, the
/// application `proactive serve` runs, without the periodic saver), with that port and a client for
/// it; the application is shut down gracefully afterwards.
func serveLive<Value: Sendable>(_ service: ProactiveService,
                                _ body: @Sendable (_ port: Int, _ client: TestClient) async throws -> Value) async throws -> Value {
    var settings = ServeSettings(address: .tcp(host: "127.0.0.1", port: 0))
    settings.saveEvery = nil
    let (ports, announce) = AsyncStream.makeStream(of: Int.self)
    let app = buildApplication(service: service, settings: settings) { port in
        announce.yield(port ?? 0)
        announce.finish()
    }
    let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: service.logger))
    return try await withThrowingTaskGroup(of: Value?.self) { tasks in
        tasks.addTask {
            try await group.run()
            return nil
        }
        var listening = ports.makeAsyncIterator()
        guard let port = await listening.next(), port > 0 else {
            await group.triggerGracefulShutdown()
            throw RawConnection.Failure(message: "the service did not start listening")
        }
        let result: Result<Value, any Error>
        do { result = .success(try await body(port, TestClient(port: port))) } catch { result = .failure(error) }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
        return try result.get()
    }
}

/// A TCP connection to a loopback port that sends bytes as given, for requests
/// no HTTP client sends (a body cut short, a chunked body the server refuses).
/// Reads never block: they poll, so a test bounds its own time.
final class RawConnection: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    private var descriptor: Int32

    /// Connects to `port` on 127.0.0.1, else on ::1.
    init(port: Int) throws {
        descriptor = -1
        for family in [AF_INET, AF_INET6] {
            let candidate = socket(family, Int32(SOCK_STREAM.rawValue), 0)
            guard candidate >= 0 else { continue }
            if Self.connect(candidate, family: family, port: port) {
                descriptor = candidate
                break
            }
            Glibc.close(candidate)
        }
        guard descriptor >= 0 else { throw Failure(message: "cannot connect to loopback port \(port)") }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    deinit { close() }

    private static func connect(_ descriptor: Int32, family: Int32, port: Int) -> Bool {
        if family == AF_INET {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
        }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = in_port_t(UInt16(port).bigEndian)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0 }
        }
    }

    /// Sends every byte of `text`, waiting (up to five seconds) while the socket is full.
    func send(_ text: String) async throws {
        var bytes = Array(text.utf8)[...]
        let deadline = ContinuousClock.now + .seconds(5)
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                bytes = bytes.dropFirst(sent)
            } else if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            } else {
                throw Failure(message: "send failed: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// What arrives until the server closes the connection (end of stream or a reset)
    /// or `timeout` passes, and whether it closed.
    func readUntilClosed(timeout: Duration) async throws -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += buffer[..<count]
            } else if count == 0 || errno == ECONNRESET {
                return (String(decoding: received, as: UTF8.self), true)
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                try await Task.sleep(for: .milliseconds(20))
            } else {
                throw Failure(message: "recv failed: \(String(cString: strerror(errno)))")
            }
        }
        return (String(decoding: received, as: UTF8.self), false)
    }

    func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }
}
