import Testing

// MARK: - One shared check

/// One check of a store contract, named for the test listing, run on the `Stores` an implementation's
/// tests make (a fresh, empty store each time).
public struct ConformanceCheck<Stores>: Sendable, CustomTestStringConvertible {
    public let name: String
    public let run: @Sendable (Stores) throws -> Void

    public init(name: String, run: @escaping @Sendable (Stores) throws -> Void) {
        self.name = name
        self.run = run
    }

    public var testDescription: String { name }
}
