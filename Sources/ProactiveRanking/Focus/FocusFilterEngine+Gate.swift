import ProactiveCore

// MARK: - The ranking's Focus hook

/// The engine is the ranking's Focus gate: `Ranker(..., focusGate: engine)`
/// hides intent suggestions and widgets the active Focus filters out.
///
/// - A widget candidate is judged on its configuration intent's parameters
///   (a static widget has none, so it is allowed).
/// - An intent candidate is judged on the parameters written in its target key
///   (`app:Intent(account=work)`, values as key texts, entities by id), the
///   same values `decision(app:parameters:activeFocus:)` compares.
/// - The Focus is the moment's `focus` context value (enrich moments with a
///   `FocusTimeline` so it is set); nil allows everything.
extension FocusFilterEngine: FocusFilterGate {
    public func allows(_ candidate: FocusCandidate, focus: String?, context: [String: String]) -> Bool {
        // Apps without a filter (most candidates) cost one lookup: app contexts exist only for declared filters.
        guard let focus, filters[candidate.app] != nil, let predicate = activePredicate(app: candidate.app, focus: focus) else { return true }
        let values: [String: String]
        if let configuration = candidate.widget?.configuration {
            values = configuration.parameters.mapValues(\.keyText)
        } else if let key = candidate.target {
            values = TargetKeyParameters.values(of: key)
        } else {
            values = [:]
        }
        return predicate.matches(values, missing: .holds)
    }
}

// MARK: - Reading a target key's parameters

/// Reads the `name=value` pairs of a target key's text form
/// (`com.example.mail:SendMailIntent(account=work,to=team)`), undoing the
/// key's percent-escapes. A key without parentheses has no parameters.
enum TargetKeyParameters {
    static func values(of key: TargetKey) -> [String: String] {
        let raw = key.rawValue
        // Escaping turns every `(` inside names and values into %28, so the first `(` opens the list.
        guard let open = raw.firstIndex(of: "("), raw.hasSuffix(")") else { return [:] }
        let list = raw[raw.index(after: open)..<raw.index(before: raw.endIndex)]
        var values: [String: String] = [:]
        for pair in list.split(separator: ",", omittingEmptySubsequences: false) {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            values[unescape(pair[..<equals])] = unescape(pair[pair.index(after: equals)...])
        }
        return values
    }

    /// Undoes `%XX` escapes (the key escapes only ASCII characters).
    static func unescape(_ text: Substring) -> String {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == "%", let end = text.index(index, offsetBy: 3, limitedBy: text.endIndex),
               let byte = UInt8(text[text.index(after: index)..<end], radix: 16) {
                bytes.append(byte)
                index = end
            } else {
                bytes.append(contentsOf: Array(String(text[index]).utf8))
                index = text.index(after: index)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
