// MARK: - Matrix

/// A dense real matrix stored row-major in a Swift array.
///
/// Element `(i, j)` lives at `storage[i * columns + j]`. The invariant
/// `storage.count == rows * columns` holds for every value; the shape is fixed
/// at initialization.
package struct Matrix<Scalar: BLASScalar>: Sendable, Equatable {
    /// The number of rows.
    package let rows: Int
    /// The number of columns.
    package let columns: Int

    /// The elements, row-major; `count == rows * columns`.
    ///
    /// Elements may be changed freely, but the count may not: assigning an
    /// array of a different length traps, as it would break the shape.
    package var storage: [Scalar] {
        didSet {
            precondition(
                storage.count == rows * columns,
                "Matrix.storage must keep \(rows * columns) elements for a \(rows)x\(columns) matrix, got \(storage.count)"
            )
        }
    }

    // MARK: Initializers

    /// Creates a `rows` x `columns` matrix with every element equal to `repeating`.
    ///
    /// - Parameters:
    ///   - rows: The number of rows; must be non-negative.
    ///   - columns: The number of columns; must be non-negative.
    ///   - repeating: The value of every element.
    /// - Complexity: O(rows * columns).
    package init(rows: Int, columns: Int, repeating: Scalar = 0) {
        precondition(rows >= 0 && columns >= 0, "Matrix dimensions must be non-negative, got \(rows)x\(columns)")
        self.rows = rows
        self.columns = columns
        self.storage = Array(repeating: repeating, count: rows * columns)
    }

    /// Creates a matrix over existing row-major storage.
    ///
    /// - Parameters:
    ///   - rows: The number of rows.
    ///   - columns: The number of columns.
    ///   - storage: The elements, row-major.
    /// - Throws: `LinearAlgebraError.invalidArgument` if a dimension is negative,
    ///   `LinearAlgebraError.shapeMismatch` if `storage.count != rows * columns`.
    /// - Complexity: O(1); the array is not copied.
    package init(rows: Int, columns: Int, storage: [Scalar]) throws {
        guard rows >= 0, columns >= 0 else {
            throw LinearAlgebraError.invalidArgument(
                operation: "Matrix.init", detail: "dimensions must be non-negative, got \(rows)x\(columns)"
            )
        }
        guard storage.count == rows * columns else {
            throw LinearAlgebraError.shapeMismatch(
                operation: "Matrix.init",
                detail: "a \(rows)x\(columns) matrix needs \(rows * columns) elements but storage has \(storage.count)"
            )
        }
        self.rows = rows
        self.columns = columns
        self.storage = storage
    }

    /// Creates a matrix whose shape the caller has already checked.
    init(uncheckedRows rows: Int, columns: Int, storage: [Scalar]) {
        assert(rows >= 0 && columns >= 0 && storage.count == rows * columns)
        self.rows = rows
        self.columns = columns
        self.storage = storage
    }

    /// Creates a matrix from an array of rows.
    ///
    /// An empty array gives a 0x0 matrix.
    ///
    /// - Parameter rowArrays: The rows; all must have the same length.
    /// - Throws: `LinearAlgebraError.shapeMismatch` if the rows are ragged.
    /// - Complexity: O(rows * columns).
    package init(_ rowArrays: [[Scalar]]) throws {
        let columns = rowArrays.first?.count ?? 0
        if let bad = rowArrays.firstIndex(where: { $0.count != columns }) {
            throw LinearAlgebraError.shapeMismatch(
                operation: "Matrix.init",
                detail: "row 0 has \(columns) elements but row \(bad) has \(rowArrays[bad].count)"
            )
        }
        self.rows = rowArrays.count
        self.columns = columns
        self.storage = rowArrays.flatMap { $0 }
    }

    /// The `n` x `n` identity matrix.
    ///
    /// - Parameter n: The dimension; must be non-negative.
    /// - Complexity: O(n²).
    package static func identity(_ n: Int) -> Matrix {
        var result = Matrix(rows: n, columns: n)
        for i in 0..<n {
            result.storage[i * n + i] = 1
        }
        return result
    }

    // MARK: Element access

    /// The element in row `row`, column `column`.
    ///
    /// - Precondition: `0 <= row < rows` and `0 <= column < columns`.
    /// - Complexity: O(1).
    package subscript(row: Int, column: Int) -> Scalar {
        get {
            checkIndex(row: row, column: column)
            return storage[row * columns + column]
        }
        set {
            checkIndex(row: row, column: column)
            storage[row * columns + column] = newValue
        }
    }

    /// Row `i` as a slice of `storage` (indices `i * columns ..< (i + 1) * columns`).
    ///
    /// - Precondition: `0 <= i < rows`.
    /// - Complexity: O(1); no copy.
    package func row(_ i: Int) -> ArraySlice<Scalar> {
        precondition(i >= 0 && i < rows, "row \(i) out of range for a \(rows)x\(columns) matrix")
        return storage[i * columns ..< (i + 1) * columns]
    }

    /// The transpose: a `columns` x `rows` matrix with element `(j, i)` equal to `self[i, j]`.
    ///
    /// - Complexity: O(rows * columns).
    package var transposed: Matrix {
        var elements = [Scalar](repeating: 0, count: storage.count)
        for i in 0..<rows {
            for j in 0..<columns {
                elements[j * rows + i] = storage[i * columns + j]
            }
        }
        return Matrix(uncheckedRows: columns, columns: rows, storage: elements)
    }

    /// The shape as text, e.g. `"3x4"`, for error messages.
    var shapeDescription: String { "\(rows)x\(columns)" }

    private func checkIndex(row: Int, column: Int) {
        precondition(
            row >= 0 && row < rows && column >= 0 && column < columns,
            "index (\(row), \(column)) out of range for a \(rows)x\(columns) matrix"
        )
    }
}

// MARK: - CustomStringConvertible

extension Matrix: CustomStringConvertible {
    /// The matrix one row per line, e.g. `"[1.0, 2.0]\n[3.0, 4.0]"`.
    package var description: String {
        (0..<rows).map { "\(Array(row($0)))" }.joined(separator: "\n")
    }
}
