// MARK: - PNG encoding without compression

/// Writes 8-bit RGB images as PNG files (ISO/IEC 15948) with no dependency:
/// the zlib stream uses *stored* (uncompressed) deflate blocks, which every
/// PNG reader accepts, so only CRC-32 and Adler-32 need computing.
///
/// ```swift
/// let bytes = PNGEncoder.encode(width: 2, height: 1, rgb: [255, 0, 0, 0, 0, 255])
/// ```
/// - Complexity: O(width · height); the file is about 3 · width · height bytes.
public enum PNGEncoder {
    /// The 8-byte PNG signature.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The largest payload of one stored deflate block.
    static let maximumStoredBlock = 65_535

    /// Encodes `rgb` (row-major, 3 bytes per pixel, `width · height · 3` bytes).
    /// - Precondition: `width > 0`, `height > 0`, and `rgb` has exactly the right length.
    public static func encode(width: Int, height: Int, rgb: [UInt8]) -> [UInt8] {
        precondition(width > 0 && height > 0, "a PNG has at least one pixel")
        precondition(rgb.count == width * height * 3, "rgb holds width x height x 3 bytes")
        var png = signature
        var header: [UInt8] = []
        appendBigEndian(UInt32(width), to: &header)
        appendBigEndian(UInt32(height), to: &header)
        header += [8, 2, 0, 0, 0]  // bit depth 8, colour type 2 (RGB), deflate, adaptive filtering, no interlace
        appendChunk("IHDR", header, to: &png)
        // Scanlines: filter type 0 (None) then the row's bytes.
        let stride = width * 3
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (stride + 1))
        for row in 0..<height {
            raw.append(0)
            raw.append(contentsOf: rgb[(row * stride)..<((row + 1) * stride)])
        }
        appendChunk("IDAT", zlibStored(raw), to: &png)
        appendChunk("IEND", [], to: &png)
        return png
    }

    // MARK: zlib with stored blocks (RFC 1950, RFC 1951 section 3.2.4)

    /// A zlib stream holding `data` in stored deflate blocks.
    public static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var output: [UInt8] = [0x78, 0x01]  // deflate, 32 KiB window, no dictionary, check bits: 0x7801 % 31 == 0
        output.reserveCapacity(data.count + data.count / maximumStoredBlock * 5 + 11)
        var offset = 0
        repeat {
            let length = min(maximumStoredBlock, data.count - offset)
            let isFinal = offset + length == data.count
            output.append(isFinal ? 1 : 0)  // BFINAL, BTYPE = 00 (stored)
            output.append(UInt8(length & 0xFF))
            output.append(UInt8(length >> 8))
            output.append(UInt8(~length & 0xFF))
            output.append(UInt8((~length >> 8) & 0xFF))
            output.append(contentsOf: data[offset..<(offset + length)])
            offset += length
        } while offset < data.count
        appendBigEndian(adler32(data), to: &output)
        return output
    }

    // MARK: Checksums

    /// Adler-32 (RFC 1950) of `data`.
    public static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        var index = 0
        while index < data.count {
            // 5552 bytes is the most that cannot overflow 32 bits before the modulo (zlib's NMAX).
            let end = min(index + 5552, data.count)
            while index < end {
                a += UInt32(data[index])
                b += a
                index += 1
            }
            a %= 65_521
            b %= 65_521
        }
        return b << 16 | a
    }

    /// The CRC-32 table for the reflected polynomial 0xEDB88320.
    static let crcTable: [UInt32] = (0..<256).map { value in
        var crc = UInt32(value)
        for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        return crc
    }

    /// CRC-32 (ISO 3309, as PNG uses it) of `data`, continuing from `crc`.
    public static func crc32<Bytes: Sequence>(_ data: Bytes, continuing crc: UInt32 = 0) -> UInt32 where Bytes.Element == UInt8 {
        var value = ~crc
        for byte in data { value = crcTable[Int((value ^ UInt32(byte)) & 0xFF)] ^ (value >> 8) }
        return ~value
    }

    // MARK: Chunks

    static func appendChunk(_ type: String, _ payload: [UInt8], to png: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        precondition(typeBytes.count == 4, "a chunk type has four letters")
        appendBigEndian(UInt32(payload.count), to: &png)
        png.append(contentsOf: typeBytes)
        png.append(contentsOf: payload)
        appendBigEndian(crc32(payload, continuing: crc32(typeBytes)), to: &png)
    }

    static func appendBigEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes.append(UInt8(value >> 24))
        bytes.append(UInt8((value >> 16) & 0xFF))
        bytes.append(UInt8((value >> 8) & 0xFF))
        bytes.append(UInt8(value & 0xFF))
    }
}
