import Foundation

// MARK: - Content key (when two donations are the same donation)

/// Two donations are the same donation when every field is equal: user,
/// app, intent, parameters, the instant (to the millisecond) and the offset
/// it was written with, identifier, group, context and count. A date given
/// as Unix seconds counts as written in UTC (`+00:00`), as `export` writes
/// it, so an exported Unix-seconds donation is recognised. A donation
/// without an identifier has nothing else to be recognised by, so this is
/// what makes re-importing an export store nothing new.
///
/// The store keeps one row per `(user, date_ms, content_hash)` (the UNIQUE
/// index `donation_user_date_content`, migration `v9_donation_content_key`).
/// `content_hash` is a 64-bit FNV-1a hash of the stored columns; two
/// different donations of one user at the same millisecond would have to
/// collide in 64 bits to be taken for one another.
///
/// The hash is stored in every store file: the byte layout below is frozen.
/// Each field is written as a presence byte, then for text its UTF-8 length
/// (8 bytes, little-endian) and bytes, for integers their 8 little-endian
/// bytes, in column order; the offset is always present (a missing one is 0).
extension DonationRecord {
    /// `content_hash` of this record (see the extension's documentation).
    package static func contentHash(user: String, app: String, intent: String, parametersJSON: String, dateMilliseconds: Int64,
                            utcOffset: Int?, identifier: String?, group: String?, contextJSON: String, count: Int) -> Int64 {
        var hash = ContentHasher()
        hash.text(user)
        hash.text(app)
        hash.text(intent)
        hash.text(parametersJSON)
        hash.integer(dateMilliseconds)
        hash.integer(Int64(utcOffset ?? 0))
        hash.text(identifier)
        hash.text(group)
        hash.text(contextJSON)
        hash.integer(Int64(count))
        return Int64(bitPattern: hash.value)
    }
}

/// FNV-1a, 64 bits (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
struct ContentHasher {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    private mutating func byte(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }

    private mutating func word(_ word: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { byte(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
    }

    mutating func text(_ value: String?) {
        guard var value else { return byte(0) }
        byte(1)
        value.withUTF8 { bytes in
            word(UInt64(bytes.count))
            for character in bytes { byte(character) }
        }
    }

    mutating func integer(_ integer: Int64?) {
        guard let integer else { return byte(0) }
        byte(1)
        word(UInt64(bitPattern: integer))
    }
}
