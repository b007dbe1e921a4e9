// MARK: - LinearAlgebraError

/// An error from a `LinearAlgebra` operation.
///
/// Bad input never traps: shapes that do not fit together, arguments out of
/// range and every nonzero LAPACK `info` are reported through this type.
package enum LinearAlgebraError: Error, Equatable, CustomStringConvertible {
    /// The operands' shapes do not fit together.
    ///
    /// `operation` is the routine or method (e.g. `"gemv"`), `detail` names
    /// both shapes (e.g. `"A is 3x4 but x has 5 elements"`).
    case shapeMismatch(operation: String, detail: String)

    /// A LAPACK routine returned a nonzero `info`.
    ///
    /// `routine` is the precision-specific name (e.g. `"dpotrf"`). A negative
    /// `info` means argument `-info` was illegal (LAPACKE also reports NaN
    /// input this way); a positive `info` is a numerical failure whose meaning
    /// depends on the routine, see `description`.
    case lapack(routine: String, info: Int)

    /// An argument is out of range (e.g. a row index or a dimension too
    /// large for 32-bit BLAS).
    case invalidArgument(operation: String, detail: String)

    // MARK: CustomStringConvertible

    /// A one-line human-readable explanation.
    package var description: String {
        switch self {
        case let .shapeMismatch(operation, detail):
            "\(operation): shape mismatch: \(detail)"
        case let .invalidArgument(operation, detail):
            "\(operation): invalid argument: \(detail)"
        case let .lapack(routine, info):
            "\(routine) failed with info = \(info): \(Self.explain(routine: routine, info: info))"
        }
    }

    // MARK: LAPACK info

    /// The meaning of `info` for `routine`, following the LAPACK documentation.
    private static func explain(routine: String, info: Int) -> String {
        switch info {
        case -1010:
            return "LAPACKE could not allocate workspace memory"
        case -1011:
            return "LAPACKE could not allocate memory for the row-major transposition"
        case ..<0:
            return "argument \(-info) had an illegal value (LAPACKE also reports NaN input this way)"
        case 0:
            return "success"
        default:
            break
        }
        // Drop the precision letter ("d", "s") to get the routine family.
        switch routine.dropFirst() {
        case "potrf", "posv":
            return "the leading minor of order \(info) is not positive definite, so the Cholesky factorization could not be completed"
        case "syev", "syevd":
            return "the eigenvalue algorithm failed to converge (\(info) off-diagonal elements or submatrices did not converge)"
        default:
            return "the routine reported a numerical failure"
        }
    }
}

// MARK: - Internal checks

extension LinearAlgebraError {
    /// Throws `.shapeMismatch(operation:detail:)` unless `condition` holds.
    static func requireShape(
        _ condition: Bool, _ operation: String, _ detail: @autoclosure () -> String
    ) throws(LinearAlgebraError) {
        if !condition { throw .shapeMismatch(operation: operation, detail: detail()) }
    }

    /// Throws `.lapack(routine:info:)` unless `info` is 0.
    static func requireSuccess(_ info: Int32, routine: String) throws(LinearAlgebraError) {
        if info != 0 { throw .lapack(routine: routine, info: Int(info)) }
    }
}
