// MARK: - Bounds every adapter enforces

extension Engine {
    /// The bounds on what a caller may ask, stated once for the CLI, the service and an embedding app.
    public enum Limits {
        /// How many rows a question (predict, suggest) may ask for.
        public static let k: ClosedRange<Int> = 1...100

        /// Why `k` is out of `Limits.k`, as a phrase after the field's name ("must be an integer
        /// from 1 to 100"), or nil when it is within.
        ///
        /// ```swift
        /// Engine.Limits.kProblem(0)   // "must be an integer from 1 to 100"
        /// ```
        public static func kProblem(_ k: (some BinaryInteger)?) -> String? {
            guard let k, let k = Int(exactly: k), Self.k.contains(k) else { return "must be an integer from \(Self.k.lowerBound) to \(Self.k.upperBound)" }
            return nil
        }
    }
}
