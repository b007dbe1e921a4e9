// MARK: - Near misses

/// Suggestions for a misspelled name: the known name nearest by edit distance.
public enum Spelling {
    /// The number of single-character insertions, deletions, substitutions and transpositions of
    /// adjacent characters that turn `a` into `b` (optimal string alignment distance), case-insensitive.
    public static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a.lowercased()), y = Array(b.lowercased())
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { table[i][0] = i }
        for j in 0...y.count { table[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1) }
            }
        }
        return table[x.count][y.count]
    }

    /// The candidate nearest to `name`, when it is within a third of the name's length (at least 1,
    /// at most 3 edits) and nearer than any other; nil otherwise.
    ///
    ///     Spelling.suggestion(for: "paramters", among: ["parameters", "date"])  // "parameters"
    public static func suggestion(for name: String, among candidates: some Sequence<String>) -> String? {
        let limit = min(3, max(1, name.count / 3))
        var best: (name: String, distance: Int)?
        var tied = false
        for candidate in candidates {
            let distance = distance(name, candidate)
            guard distance <= limit, distance > 0 || name != candidate else { continue }
            if let current = best, current.distance <= distance {
                if current.distance == distance, current.name != candidate { tied = true }
                continue
            }
            best = (candidate, distance)
            tied = false
        }
        return tied ? nil : best?.name
    }
}
