// MARK: - Identifying text

/// Rules for the fields that name things the user can delete or forget by
/// (`user`, `app`, `intent`, `identifier`, `group`), applied at every entry
/// point so that what is stored is what is compared and exported.
///
/// - No control characters (Unicode category Cc: U+0000-U+001F, U+007F-U+009F):
///   SQLite's C string functions and terminals cut or garble them, so a value
///   holding one could read back as another value and escape deletion.
/// - Bundle identifiers are printable ASCII without `/` or whitespace: names
///   equal after Unicode normalisation must not be two apps to the store and
///   one app to a person, and `/` separates the app from a widget kind.
public enum IdentifierRules {
    /// Why `text` may not name something, nil when it may.
    public static func controlCharacterProblem(_ text: String) -> String? {
        for (offset, scalar) in text.unicodeScalars.enumerated() where isControl(scalar) {
            return "must not contain control characters (found \(hex(scalar)) at character \(offset + 1))"
        }
        return nil
    }

    /// Why `text` is not an acceptable bundle identifier, nil when it is.
    public static func bundleIdentifierProblem(_ text: String) -> String? {
        if text.isEmpty { return "must not be empty" }
        for (offset, scalar) in text.unicodeScalars.enumerated() {
            let value = scalar.value
            if value > 0x20, value < 0x7F, value != 0x2F { continue }
            let found = value > 0x20 && value < 0x7F ? "'/'" : hex(scalar)
            return "a bundle identifier is printable ASCII without '/' or spaces (found \(found) at character \(offset + 1))"
        }
        return nil
    }

    /// Whether two identifiers are the same one: exact scalar equality
    /// (Swift's `==` on strings also equates canonically equivalent text).
    public static func same(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.elementsEqual(rhs.utf8)
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
