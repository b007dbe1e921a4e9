import Foundation

// MARK: - Filter criteria

/// What a notification says it is about: `key=value` pairs, e.g. the
/// `filterCriteria` string `account=work` or `account=work,thread=launch`.
///
/// Text form: pairs separated by `,`; each pair splits at its first `=`;
/// keys and values are trimmed; a key may appear once. The empty string means
/// "no criteria".
public struct FilterCriteria: Sendable, Hashable, CustomStringConvertible {
    public var values: [String: String]

    public init(_ values: [String: String] = [:]) { self.values = values }

    /// - Throws: `FocusError(field: "criteria")` for a pair without `=`, an empty key or a repeated key.
    package init(parsing text: String) throws(FocusError) {
        var values: [String: String] = [:]
        for pair in text.split(separator: ",") {
            guard let equals = pair.firstIndex(of: "=") else {
                throw FocusError(field: "criteria", reason: "\"\(pair)\" is not key=value (e.g. account=work)")
            }
            let key = pair[..<equals].trimmingCharacters(in: .whitespaces)
            let value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty else { throw FocusError(field: "criteria", reason: "\"\(pair)\" has an empty key") }
            guard values[key] == nil else { throw FocusError(field: "criteria", reason: "key \"\(key)\" is given twice") }
            values[key] = value
        }
        self.values = values
    }

    public var isEmpty: Bool { values.isEmpty }
    public var description: String { values.keys.sorted().map { "\($0)=\(values[$0]!)" }.joined(separator: ",") }
}

// MARK: - Filter predicates

/// An app context's filter predicate: a conjunction of clauses over criteria keys.
///
/// Grammar (whitespace between tokens is free):
/// ```
/// predicate := clause ( ("&&" | "and") clause )*
/// clause    := key "==" value | key "!=" value | key "in" "[" value ( "," value )* "]"
/// key       := [A-Za-z0-9_.-]+
/// value     := "quoted text" (\" and \\ escapes) | a bare word [A-Za-z0-9_.@:-]+
/// ```
/// Example: `account == "personal"`, `account in [personal, family] && priority != low`.
///
/// Evaluation (`matches`): every clause must hold. A clause whose key the
/// criteria do not give is decided by `missing`: notifications use `.fails`
/// (criteria that do not speak to the predicate's key do not match it), targets
/// use `.holds` (a target without an `account` parameter is not about an account).
public struct FilterPredicate: Sendable, Hashable, CustomStringConvertible {
    public enum Clause: Sendable, Hashable {
        case equals(key: String, value: String)
        case notEquals(key: String, value: String)
        case oneOf(key: String, values: [String])

        package var key: String {
            switch self {
            case let .equals(key, _), let .notEquals(key, _), let .oneOf(key, _): return key
            }
        }

        func holds(for value: String) -> Bool {
            switch self {
            case let .equals(_, expected): return value == expected
            case let .notEquals(_, excluded): return value != excluded
            case let .oneOf(_, allowed): return allowed.contains(value)
            }
        }
    }

    /// What a clause about a key the criteria lack evaluates to.
    public enum Missing: Sendable { case holds, fails }

    public var clauses: [Clause]

    public init(clauses: [Clause]) { self.clauses = clauses }

    /// The first clause that fails for `criteria`, or nil when the predicate matches.
    public func failingClause(_ criteria: [String: String], missing: Missing) -> Clause? {
        clauses.first { clause in
            guard let value = criteria[clause.key] else { return missing == .fails }
            return !clause.holds(for: value)
        }
    }

    public func matches(_ criteria: [String: String], missing: Missing) -> Bool {
        failingClause(criteria, missing: missing) == nil
    }

    public var description: String { clauses.map(Self.format).joined(separator: " && ") }

    public static func format(_ clause: Clause) -> String {
        switch clause {
        case let .equals(key, value): return "\(key) == \(quote(value))"
        case let .notEquals(key, value): return "\(key) != \(quote(value))"
        case let .oneOf(key, values): return "\(key) in [\(values.map(quote).joined(separator: ", "))]"
        }
    }

    static func quote(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

// MARK: - Parsing

extension FilterPredicate {
    /// Parses the text form (see the type's grammar).
    /// - Throws: `FocusError(field: "predicate")` naming the character position and what was expected.
    package init(parsing text: String) throws(FocusError) {
        var scanner = PredicateScanner(text)
        var clauses: [Clause] = []
        repeat {
            clauses.append(try scanner.clause())
        } while try scanner.conjunction()
        try scanner.expectEnd()
        self.init(clauses: clauses)
    }
}

/// A small hand-written tokenizer for `FilterPredicate`.
private struct PredicateScanner {
    let characters: [Character]
    var index = 0

    init(_ text: String) { characters = Array(text) }

    func fail(_ reason: String) -> FocusError {
        FocusError(field: "predicate", reason: "at position \(index + 1): \(reason)")
    }

    mutating func skipSpaces() { while index < characters.count, characters[index].isWhitespace { index += 1 } }

    mutating func word(_ allowed: (Character) -> Bool, _ what: String) throws(FocusError) -> String {
        skipSpaces()
        let start = index
        while index < characters.count, allowed(characters[index]) { index += 1 }
        guard index > start else { throw fail("expected \(what)") }
        return String(characters[start..<index])
    }

    static func isKey(_ character: Character) -> Bool { character.isLetter || character.isNumber || "_.-".contains(character) }
    static func isBare(_ character: Character) -> Bool { isKey(character) || "@:".contains(character) }

    mutating func consume(_ token: String) -> Bool {
        skipSpaces()
        let end = index + token.count
        guard end <= characters.count, String(characters[index..<end]) == token else { return false }
        index = end
        return true
    }

    mutating func value() throws(FocusError) -> String {
        skipSpaces()
        guard index < characters.count, characters[index] == "\"" else { return try word(Self.isBare, "a value (a word or \"quoted text\")") }
        index += 1
        var output = ""
        while index < characters.count {
            let character = characters[index]
            index += 1
            if character == "\"" { return output }
            if character == "\\" {
                guard index < characters.count else { break }
                output.append(characters[index])
                index += 1
            } else {
                output.append(character)
            }
        }
        throw fail("unterminated quoted value")
    }

    mutating func clause() throws(FocusError) -> FilterPredicate.Clause {
        let key = try word(Self.isKey, "a criteria key")
        if consume("==") { return .equals(key: key, value: try value()) }
        if consume("!=") { return .notEquals(key: key, value: try value()) }
        if consume("in") {
            guard consume("[") else { throw fail("expected [ after in") }
            var values = [try value()]
            while consume(",") { values.append(try value()) }
            guard consume("]") else { throw fail("expected , or ]") }
            return .oneOf(key: key, values: values)
        }
        throw fail("expected ==, != or in after \"\(key)\"")
    }

    /// Consumes `&&` or `and` and returns true, or returns false at the end.
    mutating func conjunction() throws(FocusError) -> Bool {
        skipSpaces()
        if index == characters.count { return false }
        if consume("&&") { return true }
        let save = index
        if consume("and"), index < characters.count, characters[index].isWhitespace { return true }
        index = save
        throw fail("expected && between clauses")
    }

    mutating func expectEnd() throws(FocusError) {
        skipSpaces()
        guard index == characters.count else { throw fail("unexpected text after the predicate") }
    }
}
