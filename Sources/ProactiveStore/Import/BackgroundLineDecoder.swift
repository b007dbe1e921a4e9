import Foundation
import ProactiveCore

// MARK: - Decoding on a second thread

/// One line of a JSON Lines file, decoded and already encoded for the store
/// (so the writing thread only writes).
enum DecodedLine: Sendable {
    /// A donation and what else its line held (the user's zone, fields the format does not define).
    case record(DonationRecord, extras: DonationLineCodec.LineExtras)
    case rejected(DonationLineError)
    /// A well-formed donation the store refuses (`DonationRecord.init`);
    /// it stops the import like a store error would.
    case refused(StoreError)
    /// Empty or only spaces and tabs.
    case blank
}

/// Consecutive decoded lines and how far into the file they reach.
struct DecodedChunk: Sendable {
    /// The 1-based number of `lines[0]`.
    var firstLine: Int
    var lines: [DecodedLine] = []
    /// Bytes of the file consumed through the last line.
    var consumedBytes: Int64 = 0
}

/// Reads and decodes a JSON Lines file on its own thread while the caller
/// writes what was already decoded: parsing (and encoding each donation's
/// columns) and SQLite then use two cores.
///
/// Memory stays constant: at most `queuedChunks` chunks of `chunkLines`
/// lines wait, then the reader thread blocks. Lines come out in file
/// order. `stop()` must be called (the importer does it in a `defer`); it
/// ends the thread early when the caller gives up (strict abort, store
/// error) and waits for it (a read blocked on a pipe finishes first).
final class BackgroundLineDecoder: @unchecked Sendable {
    // @unchecked: every mutable property is read and written under `condition`.
    static let chunkLines = 1024
    static let queuedChunks = 4

    private let condition = NSCondition()
    private var queue: [DecodedChunk] = []
    private var finished = false
    private var failure: StoreError?
    private var cancelled = false
    private var exited = false

    private struct Cancelled: Error {}

    /// Starts reading `path` (`"-"`: standard input). Errors opening or
    /// reading the file come out of `next()`. With `refusingUnknownFields`, a line with a field the
    /// format does not define is rejected (`DonationLineCodec.unknownField`) instead of stored without it.
    init(path: String, refusingUnknownFields: Bool = false) {
        let thread = Thread { [self] in
            Thread.current.name = "proactive-jsonl"  // from inside, at most 15 bytes: Linux ignores a name set before start()
            produce(path, refusingUnknownFields: refusingUnknownFields)
        }
        thread.stackSize = 1 << 21
        thread.start()
    }

    // MARK: Consuming

    /// The next chunk in file order, nil at the end of the file.
    /// - Throws: the `StoreError` that stopped the reader (I/O).
    func next() throws(StoreError) -> DecodedChunk? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty, !finished { condition.wait() }
        if !queue.isEmpty {
            condition.broadcast()  // room for the reader
            return queue.removeFirst()
        }
        if let failure { throw failure }
        return nil
    }

    /// Stops the reader thread (if still running) and waits until it has exited.
    func stop() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        while !exited { condition.wait() }
        condition.unlock()
    }

    // MARK: Producing (reader thread)

    private func produce(_ path: String, refusingUnknownFields: Bool) {
        var outcome: StoreError?
        do {
            var reader = try LineReader(path: path, maximumLineBytes: DonationLineCodec.maximumLineBytes)
            var chunk = DecodedChunk(firstLine: 1)
            chunk.lines.reserveCapacity(Self.chunkLines)
            try reader.forEachLine { number, line, consumed in
                chunk.lines.append(Self.decode(line, refusingUnknownFields: refusingUnknownFields))
                chunk.consumedBytes = consumed
                if chunk.lines.count == Self.chunkLines {
                    try push(chunk)
                    chunk = DecodedChunk(firstLine: number + 1)
                    chunk.lines.reserveCapacity(Self.chunkLines)
                }
            }
            if !chunk.lines.isEmpty { try push(chunk) }
        } catch is Cancelled {
            outcome = nil
        } catch {
            outcome = StoreError.wrapping(error, while: "reading \(path)")
        }
        condition.lock()
        finished = true
        failure = outcome
        exited = true
        condition.broadcast()
        condition.unlock()
    }

    private static func decode(_ line: LineReader.Line, refusingUnknownFields: Bool) -> DecodedLine {
        switch line {
        case let .tooLong(bytes):
            return .rejected(DonationLineError(
                field: nil, reason: "line is \(bytes) bytes, longer than the limit of \(DonationLineCodec.maximumLineBytes)"))
        case let .text(bytes):
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .blank }
            let donation: Donation
            var extras = DonationLineCodec.LineExtras()
            do { donation = try DonationLineCodec.decode(bytes, extras: &extras) } catch { return .rejected(error) }
            if refusingUnknownFields, let name = extras.unknownFields.first { return .rejected(DonationLineCodec.unknownField(name)) }
            do { return .record(try DonationRecord(donation), extras: extras) } catch { return .refused(error) }
        }
    }

    /// Queues a chunk, waiting while the queue is full.
    private func push(_ chunk: DecodedChunk) throws {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= Self.queuedChunks, !cancelled { condition.wait() }
        if cancelled { throw Cancelled() }
        queue.append(chunk)
        condition.broadcast()
    }
}
