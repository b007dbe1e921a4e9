import ProactiveCore

// MARK: - Typed indices

/// The row of a target in a model's matrices (a position in a `FeatureSpace`).
public struct TargetIndex: Hashable, Comparable, Sendable, CustomStringConvertible {
    package let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "#\(rawValue)" }
}

/// One context value (`focus=work`) as a position among the space's context values.
package struct ContextColumn: Hashable, Comparable, Sendable, CustomStringConvertible {
    package let rawValue: Int
    package init(_ rawValue: Int) { self.rawValue = rawValue }
    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    package var description: String { "c\(rawValue)" }
}

/// A context key with one of its values, e.g. `focus=work`.
package struct ContextValue: Hashable, Comparable, Sendable, CustomStringConvertible {
    package var key: String
    package var value: String
    package init(key: String, value: String) {
        self.key = key
        self.value = value
    }
    package static func < (lhs: Self, rhs: Self) -> Bool { (lhs.key, lhs.value) < (rhs.key, rhs.value) }
    package var description: String { "\(key)=\(value)" }
}

// MARK: - Feature space

/// The vocabulary of one user's model: targets and context values mapped to
/// positions, separate from any model so it can grow and be shared.
///
/// ```swift
/// var space = FeatureSpace()
/// let coffee = space.insert(TargetKey(rawValue: "cafe:OrderCoffee(item=latte)"))   // #0
/// let work = space.insert(ContextValue(key: "focus", value: "work"))              // c0
/// ```
///
/// Positions are dense and stable while the space only grows; `filtered`
/// builds a smaller space (dropping targets or values) and reports the mapping.
public struct FeatureSpace: Sendable, Equatable {
    /// Targets in index order.
    package private(set) var targets: [TargetKey] = []
    /// Context values in column order.
    package private(set) var contextValues: [ContextValue] = []
    private var targetPositions: [TargetKey: Int] = [:]
    private var contextPositions: [ContextValue: Int] = [:]
    /// For each context key, the columns of its values (in column order).
    package private(set) var columnsByKey: [String: [ContextColumn]] = [:]
    /// Context keys in order of first appearance.
    public private(set) var contextKeys: [String] = []
    /// The position in `contextKeys` of each context column's key.
    package private(set) var keyPositions: [Int] = []

    package init() {}

    /// A space holding `targets` and `contextValues` in the order given (duplicates ignored).
    package init(targets: [TargetKey], contextValues: [ContextValue]) {
        for target in targets { insert(target) }
        for value in contextValues { insert(value) }
    }

    /// A canonical space for a set of events: targets and context values sorted,
    /// so the same events in any order give the same space.
    package init<S: Sequence>(events: S) where S.Element == Event {
        var targetSet = Set<TargetKey>()
        var valueSet = Set<ContextValue>()
        for event in events {
            targetSet.insert(event.target)
            for (key, value) in event.context { valueSet.insert(ContextValue(key: key, value: value)) }
        }
        self.init(targets: targetSet.sorted(), contextValues: valueSet.sorted())
    }

    // MARK: Targets

    public var targetCount: Int { targets.count }

    package func index(of target: TargetKey) -> TargetIndex? { targetPositions[target].map(TargetIndex.init) }
    /// Each target's index (shared storage: reading it does not copy).
    package var positions: [TargetKey: Int] { targetPositions }

    public func target(at index: TargetIndex) -> TargetKey { targets[index.rawValue] }

    /// Adds `target` if new. - Returns: its index.
    @discardableResult
    package mutating func insert(_ target: TargetKey) -> TargetIndex {
        if let position = targetPositions[target] { return TargetIndex(position) }
        targets.append(target)
        targetPositions[target] = targets.count - 1
        return TargetIndex(targets.count - 1)
    }

    // MARK: Context values

    package var contextCount: Int { contextValues.count }

    package func column(of value: ContextValue) -> ContextColumn? { contextPositions[value].map(ContextColumn.init) }

    package func column(key: String, value: String) -> ContextColumn? { column(of: ContextValue(key: key, value: value)) }

    package func contextValue(at column: ContextColumn) -> ContextValue { contextValues[column.rawValue] }

    /// Adds a context value if new. - Returns: its column.
    @discardableResult
    package mutating func insert(_ value: ContextValue) -> ContextColumn {
        if let position = contextPositions[value] { return ContextColumn(position) }
        contextValues.append(value)
        let column = ContextColumn(contextValues.count - 1)
        contextPositions[value] = column.rawValue
        if columnsByKey[value.key] == nil { contextKeys.append(value.key) }
        columnsByKey[value.key, default: []].append(column)
        keyPositions.append(contextKeys.firstIndex(of: value.key)!)
        return column
    }

    /// The columns of a context dictionary's known values, sorted; unknown values are skipped.
    package func columns(for context: [String: String]) -> [ContextColumn] {
        var columns: [ContextColumn] = []
        columns.reserveCapacity(context.count)
        for (key, value) in context { if let found = column(key: key, value: value) { columns.append(found) } }
        columns.sort()
        return columns
    }

    /// Adds every value of `context` and returns their columns, sorted. New values are appended in
    /// `ContextValue` order, so the columns they get do not depend on the dictionary's (per-process)
    /// iteration order.
    package mutating func insertColumns(for context: [String: String]) -> [ContextColumn] {
        context.map { ContextValue(key: $0.key, value: $0.value) }.sorted().map { insert($0) }.sorted()
    }

    // MARK: Shrinking

    /// The space restricted to the targets and values for which the predicates
    /// hold, in the same relative order, with old -> new position maps
    /// (`nil` for dropped entries).
    package func filtered(
        keepingTarget keepTarget: (TargetIndex) -> Bool, keepingColumn keepColumn: (ContextColumn) -> Bool
    ) -> (space: FeatureSpace, targetMap: [Int?], columnMap: [Int?]) {
        var space = FeatureSpace()
        var targetMap = [Int?](repeating: nil, count: targets.count)
        var columnMap = [Int?](repeating: nil, count: contextValues.count)
        for (position, target) in targets.enumerated() where keepTarget(TargetIndex(position)) {
            targetMap[position] = space.insert(target).rawValue
        }
        for (position, value) in contextValues.enumerated() where keepColumn(ContextColumn(position)) {
            columnMap[position] = space.insert(value).rawValue
        }
        return (space, targetMap, columnMap)
    }

    /// Where this space's targets and context values are in `other` (nil when absent).
    package func mapping(to other: FeatureSpace) -> (targets: [Int?], contexts: [Int?]) {
        (targets.map { other.index(of: $0)?.rawValue }, contextValues.map { other.column(of: $0)?.rawValue })
    }

    public static func == (lhs: FeatureSpace, rhs: FeatureSpace) -> Bool {
        lhs.targets == rhs.targets && lhs.contextValues == rhs.contextValues
    }
}

// MARK: - Moving per-target matrices between spaces

extension FeatureSpace {
    /// Re-lays a targets x layout-dimension matrix (row-major) of this space
    /// into `other`'s layout: entries keep their meaning (same target, same
    /// context value, same previous target); rows and columns `other` lacks are
    /// dropped and new ones are zero.
    /// - Complexity: O(rows x columns).
    package func remap(_ matrix: [Double], encoder: MomentEncoder, to other: FeatureSpace) -> [Double] {
        let oldLayout = encoder.layout(for: self)
        let newLayout = encoder.layout(for: other)
        let mapping = mapping(to: other)
        let columnMap = FeatureLayout.columnMap(from: oldLayout, to: newLayout, targetMap: mapping.targets, contextMap: mapping.contexts)
        var moved = [Double](repeating: 0, count: other.targetCount * newLayout.dimension)
        for (row, newRow) in mapping.targets.enumerated() {
            guard let newRow else { continue }
            for (column, newColumn) in columnMap.enumerated() {
                guard let newColumn else { continue }
                moved[newRow * newLayout.dimension + newColumn] = matrix[row * oldLayout.dimension + column]
            }
        }
        return moved
    }
}
