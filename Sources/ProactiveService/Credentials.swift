import Foundation
import ProactiveCore
import ProactiveStore

// MARK: - Credentials

/// The bearer credentials of a store, kept in two files beside it:
///
/// - `STORE.owner-credential`: the device owner's credential, created by the
///   first `serve` (mode 0600, one line). It sees and changes everything.
/// - `STORE.credentials`: one JSON line per app credential, `{"app": ...,
///   "sha256": ..., "created": ...}`. Only the SHA-256 of a credential is
///   kept: `apps add` shows the credential once. An app credential acts as
///   `--as-app APP` does.
///
/// A credential is `pk_` and 64 hex digits (32 random bytes). The server
/// re-reads the app file when it changes, so `apps add` and `apps revoke`
/// take effect on the next request without a restart.
public final class CredentialStore: @unchecked Sendable {
    public struct AppCredential: Sendable, Equatable {
        public var app: String
        public var sha256: String
        public var created: Date
    }

    public let ownerPath: String
    public let appsPath: String
    private let lock = NSLock()
    private var cached: (stamp: FileStamp?, byHash: [String: String]) = (nil, [:])
    /// Credentials found valid since the app file last changed, and who they act as.
    private var recent: [String: StoreAccess] = [:]
    private var ownerHash: String?

    /// The files beside the store at `storePath`.
    public init(storePath: String) {
        ownerPath = storePath + ".owner-credential"
        appsPath = storePath + ".credentials"
    }

    // MARK: The owner

    /// Reads the owner credential, creating it (mode 0600) when there is none.
    /// - Returns: the credential and whether it was created now.
    @discardableResult
    public func ensureOwnerCredential() throws -> (credential: String, created: Bool) {
        if let existing = try? String(contentsOfFile: ownerPath, encoding: .utf8) {
            let credential = existing.trimmingCharacters(in: .whitespacesAndNewlines)
            guard Self.isWellFormed(credential) else {
                throw StoreError(.io, "\(ownerPath) does not hold a credential; remove it to have a new one made")
            }
            try Self.requireOwnerOnly(ownerPath)
            setOwner(credential)
            return (credential, false)
        }
        let credential = Self.mint()
        try Self.writePrivately(credential + "\n", to: ownerPath, exclusive: true)
        setOwner(credential)
        return (credential, true)
    }

    private func setOwner(_ credential: String) {
        lock.lock()
        ownerHash = Self.hash(credential)
        lock.unlock()
    }

    // MARK: Apps

    /// Every app credential (hashes only).
    public func apps() throws -> [AppCredential] {
        guard FileManager.default.fileExists(atPath: appsPath) else { return [] }
        let text: String
        do { text = try String(contentsOfFile: appsPath, encoding: .utf8) } catch {
            throw StoreError(.io, "cannot read \(appsPath): \(error.localizedDescription)")
        }
        var result: [AppCredential] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
            guard case let .object(members)? = try? JSONParser.parse(String(line)),
                  case let .string(app)? = members.first(where: { $0.0 == "app" })?.1,
                  case let .string(hash)? = members.first(where: { $0.0 == "sha256" })?.1,
                  case let .string(created)? = members.first(where: { $0.0 == "created" })?.1,
                  let parsed = try? Timestamp.parse(created)
            else { throw StoreError(.io, "\(appsPath) line \(index + 1) is not an app credential") }
            result.append(AppCredential(app: app, sha256: hash, created: Date(timeIntervalSince1970: parsed.secondsSince1970)))
        }
        return result
    }

    /// Mints a credential for `app` and stores its hash.
    /// - Returns: the credential (shown once: only its hash is kept).
    /// - Throws: when the app already has one (`replacing` revokes it first).
    public func add(app: String, replacing: Bool = false, now: Date = Date()) throws -> String {
        guard Self.isBundleIdentifier(app) else {
            throw StoreError(.invalidRequest, "\"\(app)\" is not a bundle identifier (letters, digits, '.', '-', '_')")
        }
        var list = try apps()
        if list.contains(where: { $0.app == app }) {
            guard replacing else {
                throw StoreError(.invalidRequest, "\(app) already has a credential: proactive apps revoke \(app) first, or --replace")
            }
            list.removeAll { $0.app == app }
        }
        let credential = Self.mint()
        list.append(AppCredential(app: app, sha256: Self.hash(credential), created: now))
        try write(list)
        return credential
    }

    /// Revokes the app's credential. - Returns: false when it had none.
    @discardableResult
    public func revoke(app: String) throws -> Bool {
        var list = try apps()
        let before = list.count
        list.removeAll { $0.app == app }
        guard list.count != before else { return false }
        try write(list)
        return true
    }

    private func write(_ list: [AppCredential]) throws {
        let text = list.map { entry in
            JSONWriter.string(.object([
                ("app", .string(entry.app)), ("sha256", .string(entry.sha256)),
                ("created", .string(Timestamp.format(secondsSince1970: entry.created.timeIntervalSince1970.rounded(), utcOffsetSeconds: 0))),
            ])) + "\n"
        }.joined()
        try Self.writePrivately(text, to: appsPath, exclusive: false)
    }

    // MARK: Checking a request

    /// Who a credential acts as: the owner, an app, or nil when it is unknown.
    /// Compares hashes only; re-reads the app file when it changed on disk.
    public func access(for credential: String) -> StoreAccess? {
        guard Self.isWellFormed(credential) else { return nil }
        let stamp = FileStamp(path: appsPath)
        lock.lock()
        // Credentials already checked since the app file last changed are not hashed again.
        if stamp == cached.stamp, let known = recent[credential] {
            lock.unlock()
            return known
        }
        lock.unlock()
        let hash = Self.hash(credential)
        lock.lock()
        defer { lock.unlock() }
        if stamp != cached.stamp {
            // An unreadable file grants nothing.
            let entries = (try? apps()) ?? []
            cached = (stamp, Dictionary(entries.map { ($0.sha256, $0.app) }, uniquingKeysWith: { first, _ in first }))
            recent.removeAll()
        }
        let access: StoreAccess?
        if let ownerHash, Self.constantTimeEqual(hash, ownerHash) { access = .administrator } else { access = cached.byHash[hash].map(StoreAccess.app) }
        if access != nil, recent.count < 1024 { recent[credential] = access }  // unknown ones are not kept (401 stays a hash away)
        return access
    }

    // MARK: Pieces

    /// 32 random bytes from the system's secure generator, as `pk_` + hex.
    static func mint() -> String {
        var generator = SystemRandomNumberGenerator()
        return "pk_" + (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The SHA-256 of the credential in lowercase hex (asked on every request: no formatter).
    static func hash(_ credential: String) -> String { SHA256Digest.hex(Array(credential.utf8)) }

    static func isWellFormed(_ credential: String) -> Bool {
        credential.utf8.count == 67 && credential.hasPrefix("pk_") && credential.utf8.dropFirst(3).allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)
        }
    }

    static func isBundleIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255 && text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || ".-_".unicodeScalars.contains(scalar))
        }
    }

    private static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// Writes `text` to `path` readable and writable by the owner only
    /// (a temporary file renamed over it; `exclusive`: fails if `path` exists).
    static func writePrivately(_ text: String, to path: String, exclusive: Bool) throws {
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StoreError(.io, "cannot create \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        fchmod(descriptor, 0o600)
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == bytes.count, synced == 0 else {
            unlink(temporary)
            throw StoreError(.io, "cannot write \(temporary)")
        }
        if exclusive {
            // link() fails when the target exists: a concurrent first start keeps the other's credential.
            defer { unlink(temporary) }
            guard link(temporary, path) == 0 else {
                throw StoreError(.io, "cannot create \(path): \(String(cString: strerror(errno)))")
            }
        } else if rename(temporary, path) != 0 {
            unlink(temporary)
            throw StoreError(.io, "cannot replace \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Refuses a credential file others may read.
    static func requireOwnerOnly(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { throw StoreError(.io, "cannot read \(path)") }
        guard info.st_mode & 0o077 == 0 else {
            throw StoreError(.io, "\(path) is readable by others (mode \(String(info.st_mode & 0o777, radix: 8))): chmod 600 it")
        }
    }
}

/// What tells that a file changed: its inode, size and modification time.
struct FileStamp: Equatable {
    var inode: UInt64
    var size: Int64
    var seconds: Int
    var nanoseconds: Int

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        seconds = Int(info.st_mtim.tv_sec)
        nanoseconds = Int(info.st_mtim.tv_nsec)
    }
}
