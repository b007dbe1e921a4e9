import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOPosix

// MARK: - A small HTTP/1.1 client for the live service

/// An answer as the client received it.
struct TestResponse: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: ByteBuffer
}

/// Sends each request on a connection of its own to the service listening on `port` (127.0.0.1) and
/// collects the whole answer: what the tests need of an HTTP client, on SwiftNIO's HTTP/1.1 codec.
struct TestClient: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let port: Int

    /// Sends `method uri` with `headers` and `body` (a `Content-Length` is added), and hands the answer to `check`.
    func execute<Value: Sendable>(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil,
                                  _ check: @Sendable (TestResponse) async throws -> Value) async throws -> Value {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        let response = try await channel.executeThenClose { inbound, outbound -> TestResponse in
            var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method.rawValue), uri: uri)
            head.headers.add(name: "Host", value: "localhost")
            for field in headers { head.headers.add(name: field.name.rawName, value: field.value) }
            head.headers.add(name: "Content-Length", value: "\(body?.readableBytes ?? 0)")
            try await outbound.write(.head(head))
            if let body { try await outbound.write(.body(.byteBuffer(body))) }
            try await outbound.write(.end(nil))
            var answer: TestResponse?
            for try await part in inbound {
                switch part {
                case let .head(received):
                    var fields = HTTPFields()
                    for (name, value) in received.headers {
                        if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
                    }
                    answer = TestResponse(status: HTTPResponse.Status(code: Int(received.status.code)), headers: fields, body: ByteBuffer())
                case var .body(bytes):
                    answer?.body.writeBuffer(&bytes)
                case .end:
                    if let answer { return answer }
                }
            }
            throw Failure(description: "the connection closed before the answer to \(method) \(uri) was complete")
        }
        return try await check(response)
    }
}
