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

    /// Why `text` is not an acceptable bundle identifier, nil when it is: printable ASCII without `/`
    /// or spaces, nor `\` or `%` (a percent-encoded or backslash separator read back as a path), and
    /// never `.` or `..` alone (a path to another place, not an app).
    public static func bundleIdentifierProblem(_ text: String) -> String? {
        if let problem = printableNameProblem(text, rule: "a bundle identifier is printable ASCII without '/' or spaces", refusing: ["/"]) {
            return problem
        }
        if let offset = text.unicodeScalars.firstIndex(where: { $0 == "%" || $0 == "\\" }) {
            let position = text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: offset) + 1
            return "a bundle identifier must not contain '%' or '\\' (a percent-encoded or backslash path separator; "
                + "found '\(text.unicodeScalars[offset])' at character \(position))"
        }
        if text == "." || text == ".." { return "a bundle identifier must not be '.' or '..' (a path, not an app)" }
        return nil
    }

    /// Why `text` cannot name a user, nil when it can: non-empty, without control characters
    /// (U+0000 included). Any other text is a user, as the donation format takes it.
    public static func userProblem(_ text: String) -> String? {
        if text.isEmpty { return "must not be empty" }
        return controlCharacterProblem(text)
    }

    /// Why `text` cannot be a parameter's name, nil when it can: non-empty, without control characters.
    public static func parameterNameProblem(_ text: String) -> String? {
        if text.isEmpty { return "a parameter name must not be empty" }
        return controlCharacterProblem(text).map { "a parameter name " + $0 }
    }

    /// Why a text value cannot be stored, nil when it can: U+0000 ends a C string (SQLite's text functions,
    /// PostgreSQL's `text`, which refuses it), so a value holding one would read back as another value.
    public static func textValueProblem(_ text: String) -> String? {
        guard let offset = text.unicodeScalars.firstIndex(of: "\u{0}") else { return nil }
        return "must not contain U+0000 (found at character \(text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: offset) + 1))"
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
    static func printableNameProblem(_ text: String, rule: String, refusing refused: [Unicode.Scalar]) -> String? {
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
