import Foundation
import ProactiveEngine

// MARK: - Where the service listens

/// The service's address rules: a Unix domain socket by default (mode 0600 in
/// the owner's runtime directory), loopback TCP only when asked.
public enum Listening {
    /// `$XDG_RUNTIME_DIR/proactive/proactive.sock`; without `XDG_RUNTIME_DIR`,
    /// `/tmp/proactive-UID/proactive.sock` (the directory made 0700 and required to be the caller's).
    public static func defaultSocketPath(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        let base: String
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            base = runtime + "/proactive"
        } else {
            base = "/tmp/proactive-\(getuid())"
        }
        try makePrivateDirectory(base)
        return base + "/proactive.sock"
    }

    /// Creates `path` (0700) if missing; refuses one owned by another user or open to others.
    static func makePrivateDirectory(_ path: String) throws {
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw StoreError(.io, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { throw StoreError(.io, "\(path) is not a directory") }
        guard info.st_uid == getuid() else { throw StoreError(.io, "\(path) belongs to another user: give --socket") }
        guard info.st_mode & 0o077 == 0 else { throw StoreError(.io, "\(path) is open to other users (chmod 700 it): give --socket") }
    }

    /// Whether `host` is a loopback address: `localhost`, 127.0.0.0/8 or ::1.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) else { return false }
        return parts[0] == "127"
    }

    /// Makes way for a new socket at `path`: removes a stale socket nobody
    /// listens on; refuses a live one or a file that is not a socket.
    public static func prepareSocket(at path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw StoreError(.io, "\(path) exists and is not a socket") }
        if isListening(path) { throw StoreError(.io, "a server already listens on \(path)") }
        guard unlink(path) == 0 else { throw StoreError(.io, "cannot remove the stale socket \(path)") }
    }

    /// Whether something accepts connections on the Unix socket at `path`.
    static func isListening(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return result == 0
    }
}
