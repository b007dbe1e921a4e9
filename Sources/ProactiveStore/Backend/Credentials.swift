import Crypto
import Foundation
import ProactiveCore

// MARK: - Credentials: what any store checks

/// A bearer credential of `proactive serve`: `pk_` and 64 lowercase hex digits (32 random bytes),
/// kept by stores as its SHA-256 (`CredentialRecordStore`).
///
/// ```swift
/// let credential = ServiceCredential.mint()          // "pk_3f9c..."
/// let stored = ServiceCredential.hash(credential)    // 64 hex digits
/// ```
package enum ServiceCredential {
    /// 32 random bytes from the system's secure generator, as `pk_` + hex.
    package static func mint() -> String {
        var generator = SystemRandomNumberGenerator()
        return "pk_" + (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The SHA-256 of the credential in lowercase hex (swift-crypto's `SHA256`; asked on every request: no formatter).
    package static func hash(_ credential: String) -> String { sha256Hex(Array(credential.utf8)) }

    /// The SHA-256 of `bytes` (swift-crypto's `SHA256`) in lowercase hex: 64 characters.
    ///
    /// ```swift
    /// ServiceCredential.sha256Hex(Array("abc".utf8))   // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    /// ```
    package static func sha256Hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in SHA256.hash(data: bytes) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether `credential` is `pk_` and 64 lowercase hex digits.
    package static func isWellFormed(_ credential: String) -> Bool {
        credential.utf8.count == 67 && credential.hasPrefix("pk_") && credential.utf8.dropFirst(3).allSatisfy(isHexDigit)
    }

    /// Whether `text` is a stored hash: 64 lowercase hex digits.
    package static func isHash(_ text: String) -> Bool { text.utf8.count == 64 && text.utf8.allSatisfy(isHexDigit) }

    private static func isHexDigit(_ byte: UInt8) -> Bool { (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) }

    /// Whether `text` may name an app credential: 1 to 255 ASCII letters, digits, '.', '-', '_', and a
    /// bundle identifier by the one rule every path takes (`IdentifierRules`: never `.` or `..` alone).
    package static func isBundleIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255 && text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || ".-_".unicodeScalars.contains(scalar))
        } && IdentifierRules.bundleIdentifierProblem(text) == nil
    }

    /// Compares two hashes in time independent of where they differ.
    package static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// The checks every store makes before writing an app credential.
    /// - Throws: `.invalidRequest` naming what is wrong.
    package static func requireApp(_ app: String, credential: String) throws(StoreError) {
        if let problem = IdentifierRules.bundleIdentifierProblem(app) {
            throw StoreError(.invalidRequest, "\"\(app)\" is not a bundle identifier: \(problem)")
        }
        guard isBundleIdentifier(app) else {
            throw StoreError(.invalidRequest, "\"\(app)\" is not a bundle identifier (letters, digits, '.', '-', '_')")
        }
        try requireWellFormed(credential)
    }

    package static func requireWellFormed(_ credential: String) throws(StoreError) {
        guard isWellFormed(credential) else { throw StoreError(.invalidRequest, "a credential is pk_ and 64 lowercase hex digits") }
    }

    package static func alreadyHasOne(_ app: String) -> StoreError {
        StoreError(.invalidRequest, "\(app) already has a credential: proactive apps revoke \(app) first, or --replace")
    }

    // MARK: Private files

    /// The credential in the file at `path`; nil when there is no such file.
    /// - Throws: `.io` when it holds something else, or others may read it.
    package static func read(privateFile path: String) throws(StoreError) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            if FileManager.default.fileExists(atPath: path) { throw StoreError(.io, "cannot read \(path)") }
            return nil
        }
        let credential = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard isWellFormed(credential) else {
            throw StoreError(.io, "\(path) does not hold a credential; remove it to have a new one made")
        }
        try requireOwnerOnly(path)
        return credential
    }

    /// Writes `text` to `path` readable and writable by the owner only (a temporary file renamed
    /// over it; `exclusive`: linked to `path` only if nothing is there).
    /// - Returns: false when `exclusive` and `path` exists (nothing written).
    @discardableResult
    package static func writePrivately(_ text: String, to path: String, exclusive: Bool) throws(StoreError) -> Bool {
        // A name of this call's own: two threads of one process writing the same file at once must not share one.
        let temporary = path + ".tmp-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
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
                if errno == EEXIST { return false }
                throw StoreError(.io, "cannot create \(path): \(String(cString: strerror(errno)))")
            }
        } else if rename(temporary, path) != 0 {
            unlink(temporary)
            throw StoreError(.io, "cannot replace \(path): \(String(cString: strerror(errno)))")
        }
        return true
    }

    /// Refuses a credential file others may read.
    static func requireOwnerOnly(_ path: String) throws(StoreError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw StoreError(.io, "cannot read \(path)") }
        guard info.st_mode & 0o077 == 0 else {
            throw StoreError(.io, "\(path) is readable by others (mode \(String(info.st_mode & 0o777, radix: 8))): chmod 600 it")
        }
    }
}

// MARK: - Minting through any store

extension CredentialRecordStore {
    /// Mints a credential for `app` and stores its hash.
    /// - Returns: the credential (shown once: only its hash is kept).
    /// - Throws: what `addApp` throws (the app has one and `replacing` is false; not a bundle identifier).
    public func mintApp(_ app: String, replacing: Bool = false, now: Date = Date()) throws(StoreError) -> String {
        let credential = ServiceCredential.mint()
        try addApp(app, credential: credential, at: now, replacing: replacing)
        return credential
    }

    /// Makes sure the store has an owner credential, creating one when it has none, as the first
    /// `serve` does; safe for several processes starting at once (one credential is kept).
    ///
    /// Where the plaintext goes: a store that keeps it (`ownerCredentialFile`) writes it there;
    /// otherwise it goes to `file` (mode 0600, created only if absent; a file already holding a
    /// credential is adopted as the owner's) and the store keeps its hash. When another process
    /// created the owner first, a file this call wrote is removed again.
    /// - Parameter file: where to write the credential for a store that keeps only its hash
    ///   (ignored by a store that keeps it itself).
    /// - Returns: the credential when this call created it or `file` holds it, and whether it was created now.
    /// - Throws: `.invalidRequest` when the store has no owner credential, keeps only hashes and
    ///   `file` is nil; `.io` for a file that cannot be written, does not hold a credential or
    ///   that others may read; what the store throws.
    @discardableResult
    public func ensureOwnerCredential(file: String? = nil, now: Date = Date()) throws(StoreError) -> (credential: String?, created: Bool) {
        let path = ownerCredentialFile ?? file
        if let stored = try ownerHash() {
            let held = try path.flatMap { (path) throws(StoreError) in try ServiceCredential.read(privateFile: path) }
            return (held.flatMap { ServiceCredential.hash($0) == stored ? $0 : nil }, false)
        }
        guard let path else {
            throw StoreError(.invalidRequest, "the store has no owner credential yet and keeps only its hash: name a file to write it to")
        }
        var credential = ServiceCredential.mint()
        var wrote = false
        if ownerCredentialFile == nil {
            // The plaintext is on disk before its hash is stored: no owner is ever created that nobody can read.
            if try ServiceCredential.writePrivately(credential + "\n", to: path, exclusive: true) {
                wrote = true
            } else if let existing = try ServiceCredential.read(privateFile: path) {
                credential = existing
            } else {
                throw StoreError(.io, "cannot create \(path): a file came and went there; try again")
            }
        }
        if try createOwner(credential, at: now) { return (credential, true) }
        // Another process made one first: keep its credential.
        let winner = try ownerHash()
        if winner == ServiceCredential.hash(credential) { return (credential, false) }
        if wrote { unlink(path) }
        return (ownerCredentialFile == nil ? nil : try ServiceCredential.read(privateFile: path), false)
    }
}

// MARK: - Beside a store file

/// The credentials of a store file, in two files beside it (what `SQLiteBackend.credentials` vends):
///
/// - `STORE.owner-credential`: the owner's credential itself (mode 0600, one line), created by the
///   first `serve`;
/// - `STORE.credentials`: one JSON line per app credential, `{"app": ..., "sha256": ...,
///   "created": ...}`, rewritten whole (a temporary file renamed over it, mode 0600).
///
/// The version is both files' inode, size and modification time: any process's change shows.
///
/// ```swift
/// let files = CredentialFiles(storePath: "proactive.sqlite")
/// let credential = try files.mintApp("com.example.coffee")
/// ```
package struct CredentialFiles: CredentialRecordStore {
    package let ownerPath: String
    package let appsPath: String

    /// The files beside the store at `storePath`.
    package init(storePath: String) {
        ownerPath = storePath + ".owner-credential"
        appsPath = storePath + ".credentials"
    }

    package var ownerCredentialFile: String? { ownerPath }

    package func ownerHash() throws(StoreError) -> String? {
        try ServiceCredential.read(privateFile: ownerPath).map(ServiceCredential.hash)
    }

    package func createOwner(_ credential: String, at date: Date) throws(StoreError) -> Bool {
        try ServiceCredential.requireWellFormed(credential)
        return try ServiceCredential.writePrivately(credential + "\n", to: ownerPath, exclusive: true)
    }

    package func replaceOwner(_ credential: String, at date: Date) throws(StoreError) {
        try ServiceCredential.requireWellFormed(credential)
        try ServiceCredential.writePrivately(credential + "\n", to: ownerPath, exclusive: false)
    }

    /// - Throws: `.io` naming the line that is not an app credential.
    package func apps() throws(StoreError) -> [AppCredentialRecord] {
        guard FileManager.default.fileExists(atPath: appsPath) else { return [] }
        let text: String
        do { text = try String(contentsOfFile: appsPath, encoding: .utf8) } catch {
            throw StoreError(.io, "cannot read \(appsPath): \(error.localizedDescription)")
        }
        var result: [AppCredentialRecord] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
            guard case let .object(members)? = try? JSONParser.parse(String(line)),
                  case let .string(app)? = members.first(where: { $0.0 == "app" })?.1,
                  case let .string(hash)? = members.first(where: { $0.0 == "sha256" })?.1,
                  case let .string(created)? = members.first(where: { $0.0 == "created" })?.1,
                  let parsed = try? Timestamp.parse(created)
            else { throw StoreError(.io, "\(appsPath) line \(index + 1) is not an app credential") }
            result.append(AppCredentialRecord(app: app, sha256: hash, created: Date(timeIntervalSince1970: parsed.secondsSince1970)))
        }
        return result
    }

    package func addApp(_ app: String, credential: String, at date: Date, replacing: Bool) throws(StoreError) {
        try ServiceCredential.requireApp(app, credential: credential)
        var list = try apps()
        if list.contains(where: { $0.app == app }) {
            guard replacing else { throw ServiceCredential.alreadyHasOne(app) }
            list.removeAll { $0.app == app }
        }
        list.append(AppCredentialRecord(app: app, sha256: ServiceCredential.hash(credential), created: date))
        try write(list)
    }

    @discardableResult
    package func revokeApp(_ app: String) throws(StoreError) -> Bool {
        var list = try apps()
        let before = list.count
        list.removeAll { $0.app == app }
        guard list.count != before else { return false }
        try write(list)
        return true
    }

    package func version() throws(StoreError) -> CredentialsVersion {
        CredentialsVersion(Self.stamp(ownerPath) + Self.stamp(appsPath))
    }

    private func write(_ list: [AppCredentialRecord]) throws(StoreError) {
        let text = list.map { entry in
            JSONWriter.string(.object([
                ("app", .string(entry.app)), ("sha256", .string(entry.sha256)),
                ("created", .string(Timestamp.format(secondsSince1970: entry.created.timeIntervalSince1970.rounded(), utcOffsetSeconds: 0))),
            ])) + "\n"
        }.joined()
        try ServiceCredential.writePrivately(text, to: appsPath, exclusive: false)
    }

    /// What tells that a file changed: its inode, size and modification time (-1 for a missing file).
    private static func stamp(_ path: String) -> [Int64] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [-1] }
        return [Int64(bitPattern: UInt64(info.st_ino)), Int64(info.st_size), Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec)]
    }
}
