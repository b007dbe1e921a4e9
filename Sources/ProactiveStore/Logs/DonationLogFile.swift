import Foundation
import ProactiveCore

// MARK: - Reading donation logs (JSON Lines)

/// Reads a donation log (docs/FORMATS.md) without a store: for tools that work on
/// logs directly (split, evaluate, convert).
///
/// Lines come from `LineReader` (bounded memory, CRLF, BOM, over-long lines);
/// every non-blank line is decoded with `DonationLineCodec`. A malformed line
/// reaches the handler as a failure with its 1-based line number and the lines
/// around it are still read. `-` reads standard input.
///
/// ```swift
/// try DonationLogFile.read(path: "log.jsonl") { line, result in
///     switch result {
///     case let .success(donation): donations.append(donation)
///     case let .failure(error): print("log.jsonl:\(line): \(error)")
///     }
/// }
/// ```
package enum DonationLogFile {
    /// Calls `handle` for each non-blank line, in file order.
    ///
    /// - Throws: `StoreError.io` when the file cannot be opened or read;
    ///   whatever `handle` throws (reading stops there).
    package static func read(path: String, _ handle: (Int, Result<Donation, DonationLineError>) throws -> Void) throws {
        var reader = try LineReader(path: path, maximumLineBytes: DonationLineCodec.maximumLineBytes)
        try reader.forEachLine { number, line, _ in
            switch line {
            case let .tooLong(bytes):
                try handle(number, .failure(DonationLineError(
                    field: nil, reason: "line is \(bytes) bytes, longer than the limit of \(DonationLineCodec.maximumLineBytes)")))
            case let .text(bytes):
                guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
                try handle(number, Result { () throws(DonationLineError) in try DonationLineCodec.decode(bytes) })
            }
        }
    }

    /// A whole log in memory: its valid donations in file order and its bad lines.
    package struct Contents: Sendable {
        package var donations: [Donation] = []
        /// Line number and error of every malformed line.
        package var problems: [(line: Int, error: DonationLineError)] = []
    }

    /// Reads a whole log; malformed lines are collected, not fatal.
    package static func readAll(path: String) throws -> Contents {
        var contents = Contents()
        try read(path: path) { line, result in
            switch result {
            case let .success(donation): contents.donations.append(donation)
            case let .failure(error): contents.problems.append((line, error))
            }
        }
        return contents
    }
}

// MARK: - Writing donation logs

/// Writes canonical donation lines to a file (or standard output for `-`),
/// buffered. Unlike `DonationExporter` it takes donations from anywhere (a
/// converter, a split, a simulation), in the order given.
public final class DonationLogWriter {
    private var output: OutputBuffer
    /// The file this writer opened and closes (nil: standard output or a block sink).
    private let ownedDescriptor: Int32?
    private var isOpen = true
    public private(set) var written = 0

    /// Creates (or truncates) `path`; `-` is the process's standard output.
    ///
    /// - Throws: `StoreError.io` naming the file.
    public init(path: String) throws(StoreError) {
        let descriptor = path == "-" ? STDOUT_FILENO : open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw StoreError(.io, "cannot create \(path): \(String(cString: strerror(errno)))") }
        ownedDescriptor = path == "-" ? nil : descriptor
        output = OutputBuffer(descriptor: descriptor, name: path == "-" ? "standard output" : path)
    }

    /// Hands the lines to `write` in blocks of whole lines (about 256 KiB each), for output that
    /// goes somewhere other than a file (a command's captured standard output).
    /// - Parameter name: the output's name in errors.
    public init(name: String, writingBlocks write: @escaping (String) throws -> Void) {
        ownedDescriptor = nil
        output = OutputBuffer(name: name, writingBlocks: write)
    }

    deinit { if isOpen, let ownedDescriptor { Foundation.close(ownedDescriptor) } }

    public func write(_ donation: Donation) throws(StoreError) {
        try output.append(line: DonationLineCodec.encode(donation))
        written += 1
    }

    /// Flushes and closes (standard output is only flushed).
    public func close() throws(StoreError) {
        guard isOpen else { return }
        try output.flush()
        isOpen = false
        if let ownedDescriptor { Foundation.close(ownedDescriptor) }
    }
}
