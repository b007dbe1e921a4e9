import Foundation

// MARK: - Focus errors

/// Why a Focus schedule, filter declaration, configuration, predicate or
/// criteria string was rejected. `description` reads `field: reason`, with
/// `field` a JSON path (`parameters[1].default`), a CLI argument (`account`)
/// or empty when the input as a whole is at fault.
package struct FocusError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was wrong: a JSON path, a parameter name or an argument.
    package var field: String
    package var reason: String

    package init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    package var description: String { field.isEmpty ? reason : "\(field): \(reason)" }
}

// MARK: - Focus names

/// Focus names are case-insensitive: "Work", "work" and " WORK " are one Focus.
/// Every type of this folder stores names through `FocusName.normalize`, so
/// a Focus set on the command line matches `context.focus` in imported logs.
package enum FocusName {
    /// The canonical form: trimmed and lowercased.
    package static func normalize(_ name: String) -> String {
        // Already canonical (ASCII, no capitals, no surrounding white space): the usual case, met for
        // every donation a moment carries, so it skips Foundation's trimming.
        let bytes = name.utf8
        let space: (UInt8) -> Bool = { $0 == 0x20 || (0x09...0x0d).contains($0) }
        if let first = bytes.first, let last = bytes.last, !space(first), !space(last),
           !bytes.contains(where: { $0 >= 0x80 || (0x41...0x5a).contains($0) }) {
            return name
        }
        return name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// The canonical name, or an error when nothing is left after trimming or the name holds a
    /// control character (a NUL would cut the name short in SQLite's text functions).
    package static func validated(_ name: String, field: String = "focus") throws(FocusError) -> String {
        let normalized = normalize(name)
        guard !normalized.isEmpty else { throw FocusError(field: field, reason: "a Focus name cannot be empty") }
        guard !normalized.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw FocusError(field: field, reason: "a Focus name cannot hold control characters")
        }
        return normalized
    }
}
