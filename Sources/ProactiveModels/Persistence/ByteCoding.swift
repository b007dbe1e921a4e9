import Foundation

// MARK: - Writing

/// Little-endian binary writer for model files. Doubles and Floats are written
/// by bit pattern, so values round-trip exactly.
struct ByteWriter: Sendable {
    private(set) var bytes: [UInt8] = []
    /// The model format version being written (parts whose layout changed between versions read it).
    var version = ModelArchive.formatVersion
    /// Whether the parts a query does not read (the blend's training rows, the logs' records) go to
    /// `heavy` instead of inline (`ModelArchive.encodeParts`).
    var split = false
    /// Those parts, in the order they were written, when `split`.
    private(set) var heavy: [UInt8] = []
    /// Where the tail of `heavy` starts (`writeHeavyTail`), when `split` and a tail was written.
    private(set) var heavyTailStart: Int?

    init() {}

    /// Writes `body`'s bytes to `heavy` when `split`, else inline.
    mutating func writeHeavy(_ body: (inout ByteWriter) -> Void) {
        precondition(heavyTailStart == nil, "the heavy part's tail is written last")
        guard split else {
            body(&self)
            return
        }
        var part = ByteWriter()
        part.version = version
        body(&part)
        heavy.append(contentsOf: part.bytes)
    }

    /// `writeHeavy` for the tail of the heavy part: what even a query that explains (and so reads the
    /// logs' records) does not read, the blend's training rows. It is written last, at most once, so
    /// the heavy part before it can be read alone (`ModelArchive.decodeWithoutTail`).
    mutating func writeHeavyTail(_ body: (inout ByteWriter) -> Void) {
        let start = heavy.count
        writeHeavy(body)
        if split { heavyTailStart = start }
    }

    mutating func write(_ value: UInt8) { bytes.append(value) }
    mutating func write(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func write<T: FixedWidthInteger>(_ value: T) {
        var little = value.littleEndian
        withUnsafeBytes(of: &little) { bytes.append(contentsOf: $0) }
    }

    mutating func write(_ value: Int) { write(Int64(value)) }
    mutating func write(_ value: Double) { write(value.bitPattern) }

    mutating func write(_ value: Double?) {
        write(value != nil)
        if let value { write(value) }
    }

    mutating func write(_ value: String) {
        let utf8 = Array(value.utf8)
        write(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    mutating func write(_ value: String?) {
        write(value != nil)
        if let value { write(value) }
    }

    mutating func write(_ values: [Double]) {
        write(UInt64(values.count))
        writeBlock(values) { $0.bitPattern }
    }

    mutating func write(_ values: [Float]) {
        write(UInt64(values.count))
        writeBlock(values) { $0.bitPattern }
    }

    mutating func write(_ values: [Int]) {
        write(UInt64(values.count))
        writeBlock(values) { Int64($0) }
    }

    /// The values' bytes as one block on a little-endian host (where `pattern(value)` has the
    /// value's own bytes: a bit pattern, or `Int` as `Int64`), `pattern(value)` one by one elsewhere.
    private mutating func writeBlock<T: BitwiseCopyable, P: FixedWidthInteger>(_ values: [T], pattern: (T) -> P) {
        #if _endian(little)
        if MemoryLayout<T>.size == MemoryLayout<P>.size {
            values.withUnsafeBytes { bytes.append(contentsOf: $0) }
            return
        }
        #endif
        bytes.reserveCapacity(bytes.count + values.count * MemoryLayout<P>.size)
        for value in values { write(pattern(value)) }
    }

    mutating func append(_ raw: [UInt8]) { bytes.append(contentsOf: raw) }
}

// MARK: - Reading

/// The reading side of `ByteWriter`. Every read checks the remaining length
/// and throws `ModelFormatError.truncated` naming the field instead of trapping.
struct ByteReader: Sendable {
    let bytes: [UInt8]
    private(set) var offset: Int
    private let end: Int
    /// The model format version being read (parts whose layout changed between versions read it).
    var version = ModelArchive.formatVersion
    /// Where the parts a split archive keeps apart are read from.
    var parts = Parts.whole

    /// Where `readHeavy` reads.
    enum Parts: Sendable {
        /// Inline: an archive in one piece.
        case whole
        /// From the heavy part of a split archive, read in step with the light one.
        case heavy(HeavyReader)
        /// From the heavy part read without its tail (`ByteWriter.writeHeavyTail`): the tail reads nothing.
        case heavyWithoutTail(HeavyReader)
        /// Nowhere: the light part read alone, for scoring only.
        case lightOnly
        /// A light part read alone (the summaries of the parts left out precede where they would be).
        var isSplit: Bool {
            if case .whole = self { return false }
            return true
        }
    }

    /// The reader of a heavy part, shared by the light reader's copies.
    final class HeavyReader: @unchecked Sendable {
        var reader: ByteReader
        init(_ reader: ByteReader) { self.reader = reader }
    }

    /// Reads with `body` from where the heavy parts are (see `ByteWriter.writeHeavy`). - Returns: nil for a light part read alone.
    mutating func readHeavy<T>(_ body: (inout ByteReader) throws(ModelFormatError) -> T) throws(ModelFormatError) -> T? {
        switch parts {
        case .whole: return try body(&self)
        case .lightOnly: return nil
        case let .heavy(box), let .heavyWithoutTail(box): return try body(&box.reader)
        }
    }

    /// Reads with `body` what `ByteWriter.writeHeavyTail` wrote. - Returns: nil when the heavy part was
    /// read without its tail, or the light part alone.
    mutating func readHeavyTail<T>(_ body: (inout ByteReader) throws(ModelFormatError) -> T) throws(ModelFormatError) -> T? {
        if case .heavyWithoutTail = parts { return nil }
        return try readHeavy(body)
    }

    init(_ bytes: [UInt8], offset: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.offset = offset
        self.end = end ?? bytes.count
    }

    var remaining: Int { end - offset }

    mutating func take(_ count: Int, _ field: String) throws(ModelFormatError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw .truncated(field: field, offset: offset) }
        defer { offset += count }
        return bytes[offset ..< offset + count]
    }

    mutating func read<T: FixedWidthInteger>(_: T.Type, _ field: String) throws(ModelFormatError) -> T {
        let size = MemoryLayout<T>.size
        guard size <= remaining else { throw .truncated(field: field, offset: offset) }
        defer { offset += size }
        return bytes.withUnsafeBytes { raw in T(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: T.self)) }
    }

    /// `count` values stored little-endian, `MemoryLayout<T>.size` bytes each, as one block: a
    /// copy on a little-endian host, `element(raw, offset)` per value elsewhere. The caller has
    /// checked the count against the bytes left.
    private mutating func readBlock<T: BitwiseCopyable>(count: Int, _ field: String,
                                                        element: (UnsafeRawBufferPointer, Int) -> T) throws(ModelFormatError) -> [T] {
        let size = count * MemoryLayout<T>.size
        guard size <= remaining else { throw .truncated(field: field, offset: offset) }
        defer { offset += size }
        let start = offset
        return bytes.withUnsafeBytes { raw in
            [T](unsafeUninitializedCapacity: count) { buffer, initialized in
                #if _endian(little)
                if count > 0 { UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[start ..< start + size])) }
                #else
                for index in 0 ..< count { buffer[index] = element(raw, start + index * MemoryLayout<T>.size) }
                #endif
                initialized = count
            }
        }
    }

    mutating func readBool(_ field: String) throws(ModelFormatError) -> Bool {
        switch try read(UInt8.self, field) {
        case 0: return false
        case 1: return true
        case let other: throw .invalid(field: field, reason: "flag byte \(other) is neither 0 nor 1")
        }
    }

    mutating func readInt(_ field: String) throws(ModelFormatError) -> Int { Int(try read(Int64.self, field)) }

    mutating func readDouble(_ field: String) throws(ModelFormatError) -> Double {
        Double(bitPattern: try read(UInt64.self, field))
    }

    mutating func readOptionalDouble(_ field: String) throws(ModelFormatError) -> Double? {
        try readBool(field) ? try readDouble(field) : nil
    }

    mutating func readString(_ field: String) throws(ModelFormatError) -> String {
        let count = Int(try read(UInt32.self, field))
        let slice = try take(count, field)
        guard let text = String(validating: slice, as: UTF8.self) else {
            throw .invalid(field: field, reason: "not valid UTF-8")
        }
        return text
    }

    mutating func readOptionalString(_ field: String) throws(ModelFormatError) -> String? {
        try readBool(field) ? try readString(field) : nil
    }

    /// An element count, checked against the bytes left (each element needs at least `elementSize`).
    mutating func readCount(_ field: String, elementSize: Int) throws(ModelFormatError) -> Int {
        let count = try read(UInt64.self, field)
        guard count <= UInt64(remaining / max(1, elementSize)) else { throw .truncated(field: field, offset: offset) }
        return Int(count)
    }

    mutating func readDoubles(_ field: String) throws(ModelFormatError) -> [Double] {
        let count = try readCount(field, elementSize: 8)
        return try readBlock(count: count, field) { raw, at in Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))) }
    }

    mutating func readFloats(_ field: String) throws(ModelFormatError) -> [Float] {
        let count = try readCount(field, elementSize: 4)
        return try readBlock(count: count, field) { raw, at in Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self))) }
    }

    mutating func readInts(_ field: String) throws(ModelFormatError) -> [Int] {
        let count = try readCount(field, elementSize: 8)
        return try readBlock(count: count, field) { raw, at in Int(Int64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int64.self))) }
    }
}

// MARK: - Checksum

/// The checksum of model files: FNV-1a (64-bit) over the bytes taken eight at a
/// time as little-endian words, then over the remaining bytes one by one. It
/// detects corruption, not tampering; words make it about eight times faster
/// than byte-wise FNV on multi-megabyte states.
package enum FNV1a64 {
    package static func hash<C: Collection>(_ bytes: C) -> UInt64 where C.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let prime: UInt64 = 0x0000_0100_0000_01b3
        let done: Bool? = bytes.withContiguousStorageIfAvailable { buffer in
            let words = buffer.count / 8
            let raw = UnsafeRawBufferPointer(buffer)
            for index in 0 ..< words {
                hash ^= UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self))
                hash = hash &* prime
            }
            for byte in buffer[(words * 8)...] {
                hash ^= UInt64(byte)
                hash = hash &* prime
            }
            return true
        }
        if done == true { return hash }
        return Self.hash(Array(bytes))
    }

    /// The checksum of format 6 and later: four FNV-1a lanes over 32-byte blocks
    /// (lane i takes the block's i-th little-endian word), so the four multiplications
    /// of a block do not wait on each other; then `hash` over the lanes' values and
    /// the bytes after the last block. The value is part of the file format: it never changes.
    package static func laneHash<C: Collection>(_ bytes: C) -> UInt64 where C.Element == UInt8 {
        let prime: UInt64 = 0x0000_0100_0000_01b3
        let done: UInt64? = bytes.withContiguousStorageIfAvailable { buffer in
            var lanes: (UInt64, UInt64, UInt64, UInt64) = (0xcbf2_9ce4_8422_2325, 0x84222325cbf29ce4, 0x9ce484222325cbf2, 0x2325cbf29ce48422)
            let blocks = buffer.count / 32
            let raw = UnsafeRawBufferPointer(buffer)
            for block in 0 ..< blocks {
                let at = block * 32
                lanes.0 = (lanes.0 ^ UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))) &* prime
                lanes.1 = (lanes.1 ^ UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self))) &* prime
                lanes.2 = (lanes.2 ^ UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self))) &* prime
                lanes.3 = (lanes.3 ^ UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 24, as: UInt64.self))) &* prime
            }
            var rest = ByteWriter()
            for lane in [lanes.0, lanes.1, lanes.2, lanes.3] { rest.write(lane) }
            rest.append(Array(buffer[(blocks * 32)...]))
            return hash(rest.bytes)
        }
        return done ?? laneHash(Array(bytes))
    }
}
