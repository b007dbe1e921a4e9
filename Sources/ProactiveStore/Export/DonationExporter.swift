import Foundation
import ProactiveCore

// MARK: - Exporter

/// Writes donations back as canonical JSON Lines (`DonationLineCodec.encode`),
/// one per line, in the store's export order: user, then date, then
/// insertion order. Streaming: one page of donations and one output buffer
/// in memory.
///
/// Importing a canonical file whose lines are already in that order and
/// exporting it gives the same bytes.
///
/// ```swift
/// let count = try DonationExporter(store: store).export(matching: DonationFilter(user: "u1"), toPath: "u1.jsonl")
/// ```
public struct DonationExporter: Sendable {
    public var store: any DonationStore
    public var pageSize: Int

    public init(store: any DonationStore, pageSize: Int = 2000) {
        self.store = store
        self.pageSize = pageSize
    }

    /// Exports to a file, atomically: the lines go to `PATH.partial`, which
    /// replaces `path` only when everything was written.
    /// - Returns: how many lines were written.
    /// - Throws: `StoreError` (`.io` naming the file, or a store error).
    @discardableResult
    public func export(matching filter: DonationFilter = .everything, toPath path: String) throws(StoreError) -> Int {
        let partial = path + ".partial"
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw StoreError(.io, "cannot create \(partial): \(String(cString: strerror(errno)))") }
        var output = OutputBuffer(descriptor: descriptor, name: partial)
        let count: Int
        do throws(StoreError) {
            count = try export(matching: filter, to: &output)
            try output.flush()
            guard fsync(descriptor) == 0 else { throw StoreError(.io, "cannot sync \(partial): \(String(cString: strerror(errno)))") }
        } catch {
            close(descriptor)
            unlink(partial)
            throw error
        }
        close(descriptor)
        guard rename(partial, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw StoreError(.io, "cannot move \(partial) to \(path): \(reason)")
        }
        return count
    }

    /// Exports to standard output.
    @discardableResult
    public func exportToStandardOutput(matching filter: DonationFilter = .everything) throws(StoreError) -> Int {
        var output = OutputBuffer(descriptor: STDOUT_FILENO, name: "standard output")
        let count = try export(matching: filter, to: &output)
        try output.flush()
        return count
    }

    /// Exports into a string (tests, small stores).
    public func exportedText(matching filter: DonationFilter = .everything) throws(StoreError) -> String {
        var text = ""
        do {
            try store.forEachDonation(matching: filter, pageSize: pageSize) { donation in
                text += DonationLineCodec.encode(donation)
                text += "\n"
            }
        } catch {
            throw StoreError.wrapping(error, while: "exporting donations")
        }
        return text
    }

    private func export(matching filter: DonationFilter, to output: inout OutputBuffer) throws(StoreError) -> Int {
        var count = 0
        var cursor: DonationCursor?
        repeat {
            let page = try store.page(matching: filter, after: cursor, limit: pageSize)
            for donation in page.donations {
                try output.append(line: DonationLineCodec.encode(donation))
                count += 1
            }
            cursor = page.next
        } while cursor != nil
        return count
    }
}

// MARK: - Output buffer

/// Collects bytes and writes them to a file descriptor in large blocks.
struct OutputBuffer {
    let descriptor: Int32
    let name: String
    private var bytes: [UInt8] = []
    static let capacity = 1 << 18

    init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
        bytes.reserveCapacity(Self.capacity + 4096)
    }

    mutating func append(line: String) throws(StoreError) {
        bytes.append(contentsOf: line.utf8)
        bytes.append(0x0A)
        if bytes.count >= Self.capacity { try flush() }
    }

    mutating func flush() throws(StoreError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw StoreError(.io, "cannot write to \(name): \(String(cString: strerror(errno)))")
            }
            written += count
        }
        bytes.removeAll(keepingCapacity: true)
    }
}
