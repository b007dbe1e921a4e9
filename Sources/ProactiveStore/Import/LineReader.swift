import Foundation

// MARK: - Chunked line reading

/// Reads a file (or standard input) line by line in fixed-size chunks.
///
/// Memory is bounded by `maximumLineBytes + chunkBytes` whatever the file
/// size: a line longer than `maximumLineBytes` is not buffered but skipped
/// up to its newline and reported as `.tooLong`. Lines end at `\n`; one
/// trailing `\r` is dropped (CRLF files); a UTF-8 byte order mark at the
/// start of the file is ignored; the last line needs no newline.
///
/// ```swift
/// var reader = try LineReader(path: "donations.jsonl")
/// try reader.forEachLine { number, line, consumed in ... }
/// ```
package struct LineReader: ~Copyable {
    /// One line as the reader hands it out. The bytes are valid only during the callback.
    package enum Line {
        case text(UnsafeRawBufferPointer)
        /// A line longer than the limit; its length in bytes (it was not kept).
        case tooLong(bytes: Int)
    }

    package let maximumLineBytes: Int
    /// Size of the file when it is a regular file (for progress), else nil.
    package let totalBytes: Int64?
    /// Bytes read from the file so far.
    package private(set) var bytesRead: Int64 = 0

    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private let buffer: UnsafeMutableRawBufferPointer
    private let chunkBytes: Int

    // MARK: Opening

    /// Opens `path` for reading; `"-"` reads standard input.
    /// - Throws: `StoreError.io` naming the file.
    package init(path: String, maximumLineBytes: Int, chunkBytes: Int = 1 << 20) throws(StoreError) {
        let descriptor: Int32 = path == "-" ? STDIN_FILENO : open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw StoreError(.io, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        if fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            if path != "-" { close(descriptor) }
            throw StoreError(.io, "cannot read \(path): it is a directory")
        }
        let isRegular = (info.st_mode & S_IFMT) == S_IFREG
        self.init(descriptor: descriptor, ownsDescriptor: path != "-", totalBytes: isRegular ? Int64(info.st_size) : nil,
                  maximumLineBytes: maximumLineBytes, chunkBytes: chunkBytes)
    }

    /// The size of `path` when it is a regular file (nil for `"-"`, pipes, errors).
    package static func regularFileSize(path: String) -> Int64? {
        guard path != "-" else { return nil }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    private init(descriptor: Int32, ownsDescriptor: Bool, totalBytes: Int64?, maximumLineBytes: Int, chunkBytes: Int) {
        precondition(maximumLineBytes >= 1 && chunkBytes >= 1, "line and chunk sizes must be positive")
        self.descriptor = descriptor
        self.ownsDescriptor = ownsDescriptor
        self.totalBytes = totalBytes
        self.maximumLineBytes = maximumLineBytes
        self.chunkBytes = chunkBytes
        // Room for one maximal pending line (plus its \r) and a whole chunk after it.
        buffer = .allocate(byteCount: maximumLineBytes + 1 + chunkBytes, alignment: 16)
    }

    deinit {
        buffer.deallocate()
        if ownsDescriptor { close(descriptor) }
    }

    // MARK: Reading

    /// Calls `body` with each line's 1-based number, its content and the
    /// number of bytes of the file consumed up to the line's end, in order.
    /// Stops early when `body` throws (and rethrows).
    /// - Throws: `StoreError.io` when reading fails, or what `body` throws.
    package mutating func forEachLine(_ body: (_ number: Int, _ line: Line, _ consumed: Int64) throws -> Void) throws {
        let base = buffer.baseAddress!
        var start = 0, end = 0, scanned = 0
        var lineNumber = 0
        var skipping = 0  // bytes of an over-long line discarded so far (0: not skipping)
        var atEnd = false
        var firstLine = true

        func emit(_ lineStart: Int, _ lineEnd: Int) throws {
            lineNumber += 1
            let consumed = bytesRead - Int64(end - min(lineEnd + 1, end))
            var from = lineStart
            var to = lineEnd
            if firstLine {
                firstLine = false
                if to - from >= 3, base.load(fromByteOffset: from, as: UInt8.self) == 0xEF,
                   base.load(fromByteOffset: from + 1, as: UInt8.self) == 0xBB,
                   base.load(fromByteOffset: from + 2, as: UInt8.self) == 0xBF { from += 3 }
            }
            if to > from, base.load(fromByteOffset: to - 1, as: UInt8.self) == 0x0D { to -= 1 }
            if skipping > 0 {
                let length = skipping + (lineEnd - lineStart)
                skipping = 0
                try body(lineNumber, .tooLong(bytes: length), consumed)
            } else if to - from > maximumLineBytes {
                try body(lineNumber, .tooLong(bytes: to - from), consumed)
            } else {
                try body(lineNumber, .text(UnsafeRawBufferPointer(start: base + from, count: to - from)), consumed)
            }
        }

        while true {
            if scanned < end, let newline = memchr(base + scanned, 0x0A, end - scanned) {
                let offset = base.distance(to: newline)
                try emit(start, offset)
                start = offset + 1
                scanned = start
                continue
            }
            scanned = end
            if atEnd {
                if end > start || skipping > 0 { try emit(start, end) }
                return
            }
            let pending = end - start
            if skipping > 0 || pending > maximumLineBytes + 1 {
                // An over-long line: count its bytes, keep none of them.
                skipping += pending
                start = 0; end = 0; scanned = 0
            } else if start > 0 {
                if pending > 0 { memmove(base, base + start, pending) }
                start = 0; end = pending; scanned = pending
            }
            let count = read(descriptor, base + end, buffer.count - end)
            if count < 0 {
                if errno == EINTR { continue }
                throw StoreError(.io, "reading failed after \(bytesRead) bytes: \(String(cString: strerror(errno)))")
            }
            if count == 0 { atEnd = true }
            end += count
            bytesRead += Int64(count)
        }
    }
}
