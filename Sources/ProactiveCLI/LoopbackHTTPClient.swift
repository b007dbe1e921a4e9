import Foundation
import ProactiveEngine
#if canImport(Glibc)
import Glibc
private let systemSocket = Glibc.socket
private let systemConnect = Glibc.connect
private let streamSocket = Int32(SOCK_STREAM.rawValue)
private let sendFlags = Int32(MSG_NOSIGNAL)
#elseif canImport(Darwin)
import Darwin
private let systemSocket = Darwin.socket
private let systemConnect = Darwin.connect
private let streamSocket = SOCK_STREAM
private let sendFlags: Int32 = 0  // Darwin: SO_NOSIGPIPE instead
#endif

// MARK: - A plain HTTP GET for a local server

/// HTTP/1.0 GETs to a server given as `http://HOST:PORT` (ActivityWatch's REST API on
/// localhost): one connection per request, a 10 s timeout, the body read to the
/// end. No TLS and no redirects: the servers it reads run on this machine.
struct LoopbackHTTPClient: ActivityWatchTransport {
    let host: String
    let port: UInt16
    let url: String

    /// - Throws: `ValidationError`-worthy text when `url` is not `http://HOST[:PORT]`.
    init(url: String) throws {
        guard let components = URLComponents(string: url), components.scheme == "http", let host = components.host, !host.isEmpty,
              components.path.isEmpty || components.path == "/" else {
            throw CommandFailure(description: "--url must read http://HOST[:PORT] (ActivityWatch's server, e.g. http://localhost:5600), found \(url)")
        }
        self.host = host
        self.port = UInt16(components.port ?? 80)
        self.url = url
    }

    func get(_ path: String) throws -> [UInt8] {
        let socket = try connect()
        defer { close(socket) }
        let request = "GET \(path) HTTP/1.0\r\nHost: \(host):\(port)\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
        var bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, sendFlags) }
            guard count > 0 else { throw ActivityWatchUnreachable("\(url): the connection closed while sending (\(String(cString: strerror(errno))))") }
            sent += count
        }
        bytes = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count == 0 { break }
            guard count > 0 else { throw ActivityWatchUnreachable("\(url): no answer (\(String(cString: strerror(errno))))") }
            bytes += buffer[0 ..< count]
        }
        guard let end = Self.headerEnd(bytes) else { throw ActivityWatchUnreachable("\(url): the answer ended before its headers did") }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        let status = head.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        let body = Array(bytes[(end + 4)...])
        guard status == 200 else {
            throw CommandFailure(description: "\(url)\(path): HTTP status \(status): \(String(decoding: body.prefix(300), as: UTF8.self))")
        }
        return body
    }

    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0 ... bytes.count - 4 where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private func connect() throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamSocket
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw ActivityWatchUnreachable("\(url): cannot resolve \(host) (\(String(cString: gai_strerror(status))))")
        }
        defer { freeaddrinfo(list) }
        var reason = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            let socket = systemSocket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            if socket >= 0 {
                var timeout = timeval(tv_sec: 10, tv_usec: 0)
                setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                if systemConnect(socket, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return socket }
                reason = String(cString: strerror(errno))
                close(socket)
            }
            entry = address.pointee.ai_next
        }
        throw ActivityWatchUnreachable("\(url): \(reason)")
    }
}
