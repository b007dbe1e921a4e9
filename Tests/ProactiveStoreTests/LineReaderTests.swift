import Foundation
@testable import ProactiveStore
import Testing

/// Line splitting across chunk boundaries with bounded memory.
@Suite("LineReader")
struct LineReaderTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    /// Reads a file with tiny buffers and renders each line as text or `<long N>`.
    func lines(_ bytes: [UInt8], maximum: Int, chunk: Int) throws -> [String] {
        let path = directory.file("lines-\(maximum)-\(chunk).txt")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var reader = try LineReader(path: path, maximumLineBytes: maximum, chunkBytes: chunk)
        var result: [String] = []
        var numbers: [Int] = []
        var lastConsumed: Int64 = 0
        try reader.forEachLine { number, line, consumed in
            numbers.append(number)
            #expect(consumed >= lastConsumed)
            lastConsumed = consumed
            switch line {
            case let .text(buffer): result.append(String(decoding: buffer, as: UTF8.self))
            case let .tooLong(count): result.append("<long \(count)>")
            }
        }
        #expect(numbers == Array(1...max(1, numbers.count)).prefix(numbers.count).map { $0 })
        #expect(lastConsumed == Int64(bytes.count), "the last line ends the file")
        #expect(reader.bytesRead == Int64(bytes.count))
        return result
    }

    @Test(arguments: [1, 2, 3, 5, 64])
    func splitsLinesAcrossChunks(chunk: Int) throws {
        let text = Array("ab\ncdef\n\nxy\r\nlast".utf8)
        #expect(try lines(text, maximum: 8, chunk: chunk) == ["ab", "cdef", "", "xy", "last"])
    }

    @Test(arguments: [1, 3, 7])
    func skipsOverLongLinesWithoutKeepingThem(chunk: Int) throws {
        let text = Array("ok\n0123456789abcdef\nfine\n0123456789".utf8)
        #expect(try lines(text, maximum: 5, chunk: chunk) == ["ok", "<long 16>", "fine", "<long 10>"])
        // Exactly at the limit is fine, also with a CR before the newline.
        #expect(try lines(Array("12345\r\n123456\n".utf8), maximum: 5, chunk: chunk) == ["12345", "<long 6>"])
    }

    @Test func dropsAByteOrderMarkAndHandlesEmptyFiles() throws {
        #expect(try lines([0xEF, 0xBB, 0xBF] + Array("a\nb\n".utf8), maximum: 8, chunk: 2) == ["a", "b"])
        #expect(try lines([], maximum: 8, chunk: 2) == [])
        #expect(try lines(Array("\n".utf8), maximum: 8, chunk: 2) == [""])
    }
}
