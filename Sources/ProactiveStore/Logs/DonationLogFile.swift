import Foundation
import ProactiveCore

// MARK: - Reading donation logs (JSON Lines)

/// Streams a donation log (FORMATS.md) line by line in bounded memory.
///
/// Every non-blank line is decoded with `DonationLineCodec`; a malformed line
/// reaches the handler as a failure with its 1-based line number, and the
/// lines around it are still read. `-` reads standard input.
///
/// ```swift
/// try DonationLogFile.read(path: "log.jsonl") { line, result in
///     switch result {
///     case let .success(donation): donations.append(donation)
///     case let .failure(error): print("log.jsonl:\(line): \(error)")
///     }
/// }
/// ```
public enum DonationLogFile {
    static let chunkSize = 1 << 20

    /// Calls `handle` for each non-blank line, in file order.
    ///
    /// - Throws: `LogFileError` when the file cannot be opened or read;
    ///   whatever `handle` throws (reading stops there).
    public static func read(path: String, _ handle: (Int, Result<Donation, DonationLineError>) throws -> Void) throws {
        let file: FileHandle
        if path == "-" {
            file = FileHandle.standardInput
        } else {
            guard let opened = FileHandle(forReadingAtPath: path) else {
                throw LogFileError(path: path, reason: FileManager.default.fileExists(atPath: path) ? "cannot be opened for reading" : "no such file")
            }
            file = opened
        }
        defer { if path != "-" { try? file.close() } }

        var pending = [UInt8]()
        var lineNumber = 0
        func emit(_ line: ArraySlice<UInt8>) throws {
            lineNumber += 1
            var bytes = line
            if bytes.last == 0x0D { bytes.removeLast() }  // CRLF
            guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
            let result: Result<Donation, DonationLineError> = bytes.withUnsafeBytes { buffer in
                do throws(DonationLineError) { return .success(try DonationLineCodec.decode(buffer)) } catch { return .failure(error) }
            }
            try handle(lineNumber, result)
        }
        while true {
            let chunk: Data
            do {
                chunk = try file.read(upToCount: chunkSize) ?? Data()
            } catch {
                throw LogFileError(path: path, reason: "read failed after line \(lineNumber): \(error.localizedDescription)")
            }
            if chunk.isEmpty { break }
            pending.append(contentsOf: chunk)
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: 0x0A) {
                try emit(pending[start..<newline])
                start = newline + 1
            }
            pending.removeSubrange(..<start)
        }
        if !pending.isEmpty { try emit(pending[...]) }
    }

    /// A whole log in memory: its valid donations in file order and its bad lines.
    public struct Contents: Sendable {
        public var donations: [Donation] = []
        /// Line number and error of every malformed line.
        public var problems: [(line: Int, error: DonationLineError)] = []
    }

    /// Reads a whole log; malformed lines are collected, not fatal.
    public static func readAll(path: String) throws -> Contents {
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

/// Writes canonical donation lines to a file (or standard output for `-`), buffered.
public final class DonationLogWriter {
    private let file: FileHandle
    private let path: String
    private var buffer = [UInt8]()
    public private(set) var written = 0

    /// Creates (or truncates) `path`.
    ///
    /// - Throws: `LogFileError` when the file cannot be created.
    public init(path: String) throws {
        self.path = path
        if path == "-" {
            file = FileHandle.standardOutput
        } else {
            guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
                throw LogFileError(path: path, reason: "cannot be created for writing")
            }
            file = handle
        }
        buffer.reserveCapacity(1 << 16)
    }

    public func write(_ donation: Donation) throws {
        buffer.append(contentsOf: DonationLineCodec.encode(donation).utf8)
        buffer.append(0x0A)
        written += 1
        if buffer.count >= 1 << 16 { try flush() }
    }

    public func flush() throws {
        guard !buffer.isEmpty else { return }
        do {
            try file.write(contentsOf: buffer)
        } catch {
            throw LogFileError(path: path, reason: "write failed: \(error.localizedDescription)")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes (standard output is only flushed).
    public func close() throws {
        try flush()
        if path != "-" { try? file.close() }
    }
}
