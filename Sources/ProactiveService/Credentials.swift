import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - Credentials

/// The service's check of bearer credentials, over the store's credentials (`CredentialRecordStore`:
/// `CredentialFiles` beside a store file, `PostgresCredentialStore` in a database).
///
/// A credential is `pk_` and 64 hex digits (32 random bytes). The owner's sees and changes
/// everything; an app's acts as `--as-app APP` does. Before each check the store's `version()` is
/// compared with the one the cached credentials were read at; when another process changed them
/// (`apps add`, `apps revoke`, another instance) they are read again, so a change takes effect on
/// the next request without a restart. Credentials already found valid at the current version are
/// not hashed again.
///
/// ```swift
/// let credentials = CredentialStore(records: try storage.credentials)
/// try credentials.ensureOwnerCredential(file: "/run/proactive/owner-credential")
/// let access = try credentials.access(for: "pk_...")   // nil: unknown
/// ```
public final class CredentialStore: @unchecked Sendable {  // mutable state only under `lock`
    public let records: any CredentialRecordStore
    private let lock = NSLock()
    /// The credentials as read at `version`: the owner's hash and the apps' hashes.
    private var cached: (version: CredentialsVersion?, owner: String?, byHash: [String: String]) = (nil, nil, [:])
    /// Credentials found valid at `cached.version`, and who they act as.
    private var recent: [String: StoreAccess] = [:]

    public init(records: any CredentialRecordStore) { self.records = records }

    /// The files beside the store file at `storePath` (`CredentialFiles`).
    public convenience init(storePath: String) { self.init(records: CredentialFiles(storePath: storePath)) }

    // MARK: The owner and apps

    /// `CredentialRecordStore.ensureOwnerCredential(file:)`: the owner's credential, created when
    /// the store has none (written to the store's own file, else to `file`).
    @discardableResult
    public func ensureOwnerCredential(file: String? = nil) throws(StoreError) -> (credential: String?, created: Bool) {
        try records.ensureOwnerCredential(file: file)
    }

    /// Every app credential (hashes only).
    public func apps() throws(StoreError) -> [AppCredentialRecord] { try records.apps() }

    /// Mints a credential for `app` and stores its hash (`CredentialRecordStore.mintApp`).
    public func add(app: String, replacing: Bool = false, now: Date = Date()) throws(StoreError) -> String {
        try records.mintApp(app, replacing: replacing, now: now)
    }

    /// Revokes the app's credential. - Returns: false when it had none.
    @discardableResult
    public func revoke(app: String) throws(StoreError) -> Bool { try records.revokeApp(app) }

    // MARK: Checking a request

    /// Who a credential acts as: the owner, an app, or nil when it is unknown. Compares hashes only.
    /// - Throws: what the store throws reading its version or credentials (a database away; a
    ///   credential file that cannot be read): nothing is granted then.
    public func access(for credential: String) throws(StoreError) -> StoreAccess? {
        guard ServiceCredential.isWellFormed(credential) else { return nil }
        let version = try records.version()
        lock.lock()
        if version == cached.version, let known = recent[credential] {
            lock.unlock()
            return known
        }
        let current = version == cached.version
        lock.unlock()
        if !current {
            let owner = try records.ownerHash()
            let apps = try records.apps()
            lock.lock()
            cached = (version, owner, Dictionary(apps.map { ($0.sha256, $0.app) }, uniquingKeysWith: { first, _ in first }))
            recent.removeAll()
            lock.unlock()
        }
        let hash = ServiceCredential.hash(credential)
        lock.lock()
        defer { lock.unlock() }
        let access: StoreAccess?
        if let owner = cached.owner, ServiceCredential.constantTimeEqual(hash, owner) {
            access = .administrator
        } else {
            access = cached.byHash[hash].map(StoreAccess.app)
        }
        // Kept only while the version is the one read; unknown ones are not kept (401 stays a hash away).
        if access != nil, cached.version == version, recent.count < 1024 { recent[credential] = access }
        return access
    }
}
