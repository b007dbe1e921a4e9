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
/// - Widget kinds follow the same rule, without `\` or `..` either.
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
        printableNameProblem(text, rule: "a bundle identifier is printable ASCII without '/' or spaces", refusing: ["/"])
    }

    /// Why `text` is not an acceptable widget kind, nil when it is. A kind names a widget within
    /// its app (`app/kind` is a widget's stored key): a bundle identifier's characters, without
    /// `\` either, and never `..`, so that no kind reads as a path to another app's widget.
    public static func widgetKindProblem(_ text: String) -> String? {
        if let problem = printableNameProblem(text, rule: "a widget kind is printable ASCII without '/', '\\' or spaces", refusing: ["/", "\\"]) {
            return problem
        }
        return text.contains("..") ? "a widget kind must not contain '..'" : nil
    }

    /// Why `text` is not a non-empty run of printable ASCII other than `refused` (spaces and controls
    /// excluded), stated as `rule` and where the first offending character is; nil when it is.
    static func printableNameProblem(_ text: String, rule: String, refusing refused: Set<Unicode.Scalar>) -> String? {
        if text.isEmpty { return "must not be empty" }
        for (offset, scalar) in text.unicodeScalars.enumerated() {
            let value = scalar.value
            let printable = value > 0x20 && value < 0x7F
            if printable, !refused.contains(scalar) { continue }
            return "\(rule) (found \(printable ? "'\(scalar)'" : hex(scalar)) at character \(offset + 1))"
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
