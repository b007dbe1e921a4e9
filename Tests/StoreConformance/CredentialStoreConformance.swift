import Foundation
import ProactiveStore
import Testing

// MARK: - The service's credentials

/// One empty store's credentials seen from two connections (or two processes' views of the same
/// files), and everything the store holds about them as text, for the checks below.
public struct CredentialParts: Sendable {
    public let store: any CredentialRecordStore
    /// The same credentials through another connection, as another instance sees them.
    public let other: any CredentialRecordStore
    /// Every byte the store keeps about credentials, as text (the files, or the tables' rows).
    public let held: @Sendable () throws -> String

    public init(store: any CredentialRecordStore, other: any CredentialRecordStore, held: @escaping @Sendable () throws -> String) {
        self.store = store
        self.other = other
        self.held = held
    }
}

/// The contract of `CredentialRecordStore` as checks on an empty store, run by each implementation's
/// tests (ProactiveStoreTests: `CredentialFiles`; ProactivePostgresTests: `PostgresCredentialStore`).
///
/// ```swift
/// @Test(arguments: CredentialStoreConformance.checks)
/// func credentials(check: CredentialStoreConformance.Check) throws { try check.run(makeCredentialParts()) }
/// ```
public enum CredentialStoreConformance {
    public typealias Check = ConformanceCheck<CredentialParts>

    public static let checks: [Check] = [
        Check(name: "appsAreHashedListedReplacedAndRevoked", run: appsAreHashedListedReplacedAndRevoked),
        Check(name: "badAppsAndCredentialsAreRefused", run: badAppsAndCredentialsAreRefused),
        Check(name: "theOwnerIsCreatedOnceAndReplaced", run: theOwnerIsCreatedOnceAndReplaced),
        Check(name: "twoFirstOwnersAtOnceKeepOne", run: twoFirstOwnersAtOnceKeepOne),
        Check(name: "theVersionMovesWithEveryWriteOfAnyConnection", run: theVersionMovesWithEveryWriteOfAnyConnection),
        Check(name: "theOwnerCredentialIsWrittenWhereItsOwnerReadsIt", run: theOwnerCredentialIsWrittenWhereItsOwnerReadsIt),
    ]

    static let minted = Date(timeIntervalSince1970: 1_795_000_000)

    static func refusal(_ body: () throws -> Void) -> StoreError.Code? {
        do { try body() } catch let error as StoreError { return error.code } catch { return nil }
        return nil
    }

    // MARK: Apps

    public static func appsAreHashedListedReplacedAndRevoked(_ parts: CredentialParts) throws {
        let store = parts.store
        #expect(try store.apps().isEmpty)
        let coffee = try store.mintApp("com.example.coffee", now: minted)
        let weather = try parts.other.mintApp("com.example.weather", now: minted.addingTimeInterval(1))
        #expect(ServiceCredential.isWellFormed(coffee) && coffee != weather)
        #expect(try store.apps() == [
            AppCredentialRecord(app: "com.example.coffee", sha256: ServiceCredential.hash(coffee), created: minted),
            AppCredentialRecord(app: "com.example.weather", sha256: ServiceCredential.hash(weather), created: minted.addingTimeInterval(1)),
        ])
        #expect(refusal { _ = try store.mintApp("com.example.coffee") } == .invalidRequest)
        #expect(try store.apps().first?.sha256 == ServiceCredential.hash(coffee), "a refused add changes nothing")
        let replaced = try store.mintApp("com.example.coffee", replacing: true, now: minted.addingTimeInterval(2))
        #expect(try store.apps().map(\.app) == ["com.example.weather", "com.example.coffee"], "a replaced credential lists as the newest")
        #expect(try store.apps().last?.sha256 == ServiceCredential.hash(replaced))
        let held = try parts.held()
        for credential in [coffee, weather, replaced] { #expect(!held.contains(credential), "a credential itself is never stored") }
        #expect(held.contains(ServiceCredential.hash(replaced)) && !held.contains(ServiceCredential.hash(coffee)))
        #expect(try parts.other.revokeApp("com.example.coffee"))
        #expect(try !store.revokeApp("com.example.coffee"))
        #expect(try store.apps().map(\.app) == ["com.example.weather"])
    }

    public static func badAppsAndCredentialsAreRefused(_ parts: CredentialParts) throws {
        let store = parts.store
        let good = ServiceCredential.mint()
        for app in ["", "not a bundle id", "com/example", "café.example", String(repeating: "a", count: 256)] {
            #expect(refusal { try store.addApp(app, credential: good, at: minted, replacing: false) } == .invalidRequest, "\(app.prefix(12))")
        }
        for credential in ["", "pk_" + String(repeating: "A", count: 64), "pk_" + String(repeating: "0", count: 63), "sk_" + String(repeating: "0", count: 64)] {
            #expect(refusal { try store.addApp("com.example.coffee", credential: credential, at: minted, replacing: false) } == .invalidRequest)
            #expect(refusal { _ = try store.createOwner(credential, at: minted) } == .invalidRequest)
        }
        #expect(try store.apps().isEmpty && store.ownerHash() == nil)
        try store.addApp(String(repeating: "a", count: 255), credential: good, at: minted, replacing: false)
        #expect(try store.apps().count == 1)
    }

    // MARK: The owner

    public static func theOwnerIsCreatedOnceAndReplaced(_ parts: CredentialParts) throws {
        let (first, second, third) = (ServiceCredential.mint(), ServiceCredential.mint(), ServiceCredential.mint())
        #expect(try parts.store.ownerHash() == nil)
        #expect(try parts.store.createOwner(first, at: minted))
        #expect(try !parts.store.createOwner(second, at: minted))
        #expect(try !parts.other.createOwner(second, at: minted), "another connection finds the owner")
        #expect(try parts.other.ownerHash() == ServiceCredential.hash(first))
        try parts.other.replaceOwner(third, at: minted)
        #expect(try parts.store.ownerHash() == ServiceCredential.hash(third))
        if parts.store.ownerCredentialFile == nil { #expect(try !parts.held().contains(third)) }
    }

    public static func twoFirstOwnersAtOnceKeepOne(_ parts: CredentialParts) throws {
        let candidates = [ServiceCredential.mint(), ServiceCredential.mint()]
        let stores = [parts.store, parts.other]
        let outcomes = Outcomes()
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            outcomes.add(index, Result { try stores[index].createOwner(candidates[index], at: minted) })
        }
        let created = try outcomes.all().map { try $0.get() }
        #expect(created.filter { $0 }.count == 1)
        let winner = candidates[created.firstIndex(of: true) ?? 0]
        #expect(try parts.store.ownerHash() == ServiceCredential.hash(winner) && parts.other.ownerHash() == ServiceCredential.hash(winner))
    }

    // MARK: The version

    public static func theVersionMovesWithEveryWriteOfAnyConnection(_ parts: CredentialParts) throws {
        let store = parts.store
        var seen = try store.version()
        #expect(try store.version() == seen, "reading changes nothing")
        func changed(_ what: String, _ write: () throws -> Void) throws {
            try write()
            let now = try store.version()
            #expect(now != seen, "\(what)")
            seen = now
        }
        try changed("an app added by another connection") { _ = try parts.other.mintApp("com.example.coffee", now: minted) }
        try changed("an app replaced") { _ = try parts.other.mintApp("com.example.coffee", replacing: true, now: minted) }
        try changed("an owner created") { _ = try parts.other.createOwner(ServiceCredential.mint(), at: minted) }
        try changed("the owner replaced") { try parts.other.replaceOwner(ServiceCredential.mint(), at: minted) }
        try changed("an app revoked") { try parts.other.revokeApp("com.example.coffee") }
        #expect(try parts.other.version() == seen, "both connections read the same version")
    }

    // MARK: Where the owner reads it

    public static func theOwnerCredentialIsWrittenWhereItsOwnerReadsIt(_ parts: CredentialParts) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-owner-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let named = directory.appendingPathComponent("owner").path
        let keepsHashes = parts.store.ownerCredentialFile == nil
        if keepsHashes { #expect(refusal { _ = try parts.store.ensureOwnerCredential(file: nil) } == .invalidRequest) }
        let first = try parts.store.ensureOwnerCredential(file: named)
        let credential = try #require(first.credential)
        #expect(first.created)
        let file = parts.store.ownerCredentialFile ?? named
        #expect(try ServiceCredential.read(privateFile: file) == credential)
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try parts.store.ownerHash() == ServiceCredential.hash(credential))
        // Another instance: the same owner; a file it names is not written.
        let elsewhere = directory.appendingPathComponent("second").path
        let second = try parts.other.ensureOwnerCredential(file: elsewhere)
        #expect(!second.created && second.credential == (keepsHashes ? nil : credential))
        #expect(!FileManager.default.fileExists(atPath: elsewhere))
        #expect(try parts.other.ensureOwnerCredential(file: named) == (credential as String?, false))
        if keepsHashes { #expect(try !parts.held().contains(credential)) }
    }
}

/// Results gathered from concurrent work, by index.
final class Outcomes: @unchecked Sendable {  // `results` only under `lock`
    private let lock = NSLock()
    private var results: [Int: Result<Bool, any Error>] = [:]

    func add(_ index: Int, _ result: Result<Bool, any Error>) {
        lock.lock()
        results[index] = result
        lock.unlock()
    }

    func all() -> [Result<Bool, any Error>] {
        lock.lock()
        defer { lock.unlock() }
        return results.keys.sorted().map { results[$0]! }
    }
}
