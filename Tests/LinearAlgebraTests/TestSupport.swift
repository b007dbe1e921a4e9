import LinearAlgebra
import Testing

// MARK: - Comparisons

/// A tolerance loose enough for O(n) rounding in either precision.
func defaultTolerance<S: BLASScalar>(_: S.Type) -> S { 1000 * S.ulpOfOne }

/// Whether `actual` and `expected` agree elementwise to `tolerance`, relative
/// to max(1, |expected|).
func isClose<S: BLASScalar>(_ actual: [S], _ expected: [S], tolerance: S? = nil) -> Bool {
    let tolerance = tolerance ?? defaultTolerance(S.self)
    guard actual.count == expected.count else { return false }
    return zip(actual, expected).allSatisfy { a, e in abs(a - e) <= tolerance * max(1, abs(e)) }
}

/// Whether two matrices have the same shape and agree elementwise to `tolerance`.
func isClose<S: BLASScalar>(_ actual: Matrix<S>, _ expected: Matrix<S>, tolerance: S? = nil) -> Bool {
    actual.rows == expected.rows && actual.columns == expected.columns
        && isClose(actual.storage, expected.storage, tolerance: tolerance)
}

/// Records an issue unless `body` throws `.shapeMismatch` for `operation`.
func expectShapeMismatch(
    _ operation: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("expected \(operation) to throw shapeMismatch", sourceLocation: sourceLocation)
    } catch let LinearAlgebraError.shapeMismatch(thrownOperation, detail) {
        #expect(thrownOperation == operation, sourceLocation: sourceLocation)
        #expect(!detail.isEmpty, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected shapeMismatch, got \(error)", sourceLocation: sourceLocation)
    }
}

// MARK: - Deterministic data

/// A `rows` x `columns` matrix of small integers (exact in Float and Double,
/// so every product below is exact regardless of summation order).
func sampleMatrix<S: BLASScalar>(_: S.Type, rows: Int, columns: Int, seed: Int) -> Matrix<S> {
    var m = Matrix<S>(rows: rows, columns: columns)
    for i in 0..<rows {
        for j in 0..<columns {
            m[i, j] = S((i * 7 + j * 3 + seed * 5) % 11 - 5)
        }
    }
    return m
}

/// A vector of small integers.
func sampleVector<S: BLASScalar>(_: S.Type, count: Int, seed: Int) -> [S] {
    (0..<count).map { S(($0 * 5 + seed * 3) % 7 - 3) }
}

/// The textbook triple-loop product op(a) op(b), as an independent reference.
func referenceProduct<S: BLASScalar>(_ a: Matrix<S>, transposeA: Bool, _ b: Matrix<S>, transposeB: Bool) -> Matrix<S> {
    let opA = transposeA ? a.transposed : a
    let opB = transposeB ? b.transposed : b
    var c = Matrix<S>(rows: opA.rows, columns: opB.columns)
    for i in 0..<opA.rows {
        for j in 0..<opB.columns {
            var sum: S = 0
            for k in 0..<opA.columns { sum += opA[i, k] * opB[k, j] }
            c[i, j] = sum
        }
    }
    return c
}
