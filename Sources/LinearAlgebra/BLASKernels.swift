// MARK: - BLASKernels

/// Allocation-free BLAS calls on raw buffers, for hot loops.
///
/// Matrices are row-major. Nothing is allocated and no `Matrix` is built;
/// the only checks are O(1) preconditions that the buffers are large enough
/// and the dimensions fit in 32 bits, which trap (they are programming errors,
/// and skipping them would let BLAS read or write out of bounds). Buffers may
/// be longer than needed; only the leading elements are used. Output buffers
/// must not overlap inputs.
public enum BLASKernels {
    // MARK: gemv

    /// y[0..<m] = alpha * op(A) x + beta * y, A row-major `rows` x `columns` in `a` (`sgemv`).
    ///
    /// op(A) is A (m = rows, x has `columns` elements) or, with `transpose`,
    /// Aᵀ (m = columns, x has `rows` elements). With `beta == 0`, `y` is not read.
    ///
    /// - Precondition: `a.count >= rows * columns`, and `x` and `y` hold at least
    ///   the elements above.
    /// - Complexity: O(rows * columns).
    public static func sgemv(
        rows: Int, columns: Int, a: UnsafeBufferPointer<Float>, x: UnsafeBufferPointer<Float>,
        y: UnsafeMutableBufferPointer<Float>, alpha: Float = 1, beta: Float = 0, transpose: Bool = false
    ) {
        gemv(rows: rows, columns: columns, a: a, x: x, y: y, alpha: alpha, beta: beta, transpose: transpose)
    }

    /// y[0..<m] = alpha * op(A) x + beta * y, A row-major `rows` x `columns` in `a` (`dgemv`).
    ///
    /// op(A) is A (m = rows, x has `columns` elements) or, with `transpose`,
    /// Aᵀ (m = columns, x has `rows` elements). With `beta == 0`, `y` is not read.
    ///
    /// - Precondition: `a.count >= rows * columns`, and `x` and `y` hold at least
    ///   the elements above.
    /// - Complexity: O(rows * columns).
    public static func dgemv(
        rows: Int, columns: Int, a: UnsafeBufferPointer<Double>, x: UnsafeBufferPointer<Double>,
        y: UnsafeMutableBufferPointer<Double>, alpha: Double = 1, beta: Double = 0, transpose: Bool = false
    ) {
        gemv(rows: rows, columns: columns, a: a, x: x, y: y, alpha: alpha, beta: beta, transpose: transpose)
    }

    // MARK: gemm

    /// C = alpha * op(A) op(B) + beta * C, all row-major (`sgemm`).
    ///
    /// C is `m` x `n` in `c`; op(A) is `m` x `k`, so `a` holds A as m x k, or
    /// k x m when `transposeA`; op(B) is `k` x `n`, so `b` holds B as k x n, or
    /// n x k when `transposeB`. With `beta == 0`, `c` is not read.
    ///
    /// - Precondition: `a.count >= m * k`, `b.count >= k * n`, `c.count >= m * n`.
    /// - Complexity: O(m * n * k).
    public static func sgemm(
        m: Int, n: Int, k: Int,
        a: UnsafeBufferPointer<Float>, transposeA: Bool = false,
        b: UnsafeBufferPointer<Float>, transposeB: Bool = false,
        c: UnsafeMutableBufferPointer<Float>, alpha: Float = 1, beta: Float = 0
    ) {
        gemm(m: m, n: n, k: k, a: a, transposeA: transposeA, b: b, transposeB: transposeB, c: c, alpha: alpha, beta: beta)
    }

    /// C = alpha * op(A) op(B) + beta * C, all row-major (`dgemm`).
    ///
    /// C is `m` x `n` in `c`; op(A) is `m` x `k`, so `a` holds A as m x k, or
    /// k x m when `transposeA`; op(B) is `k` x `n`, so `b` holds B as k x n, or
    /// n x k when `transposeB`. With `beta == 0`, `c` is not read.
    ///
    /// - Precondition: `a.count >= m * k`, `b.count >= k * n`, `c.count >= m * n`.
    /// - Complexity: O(m * n * k).
    public static func dgemm(
        m: Int, n: Int, k: Int,
        a: UnsafeBufferPointer<Double>, transposeA: Bool = false,
        b: UnsafeBufferPointer<Double>, transposeB: Bool = false,
        c: UnsafeMutableBufferPointer<Double>, alpha: Double = 1, beta: Double = 0
    ) {
        gemm(m: m, n: n, k: k, a: a, transposeA: transposeA, b: b, transposeB: transposeB, c: c, alpha: alpha, beta: beta)
    }

    // MARK: axpy

    /// y[0..<count] += alpha * x[0..<count] (`saxpy`).
    ///
    /// - Precondition: `x.count >= count` and `y.count >= count`.
    /// - Complexity: O(count).
    public static func saxpy(count: Int, alpha: Float, x: UnsafeBufferPointer<Float>, y: UnsafeMutableBufferPointer<Float>) {
        axpy(count: count, alpha: alpha, x: x, y: y)
    }

    /// y[0..<count] += alpha * x[0..<count] (`daxpy`).
    ///
    /// - Precondition: `x.count >= count` and `y.count >= count`.
    /// - Complexity: O(count).
    public static func daxpy(count: Int, alpha: Double, x: UnsafeBufferPointer<Double>, y: UnsafeMutableBufferPointer<Double>) {
        axpy(count: count, alpha: alpha, x: x, y: y)
    }

    // MARK: dot

    /// Σ x[i] * y[i] for i in 0..<count (`sdot`).
    ///
    /// - Precondition: `x.count >= count` and `y.count >= count`.
    /// - Complexity: O(count).
    public static func sdot(count: Int, x: UnsafeBufferPointer<Float>, y: UnsafeBufferPointer<Float>) -> Float {
        dot(count: count, x: x, y: y)
    }

    /// Σ x[i] * y[i] for i in 0..<count (`ddot`).
    ///
    /// - Precondition: `x.count >= count` and `y.count >= count`.
    /// - Complexity: O(count).
    public static func ddot(count: Int, x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>) -> Double {
        dot(count: count, x: x, y: y)
    }

    // MARK: Generic implementations

    private static func gemv<S: BLASScalar>(
        rows: Int, columns: Int, a: UnsafeBufferPointer<S>, x: UnsafeBufferPointer<S>,
        y: UnsafeMutableBufferPointer<S>, alpha: S, beta: S, transpose: Bool
    ) {
        let m = kernelInt(rows, "rows"), n = kernelInt(columns, "columns")
        let (xCount, yCount) = transpose ? (rows, columns) : (columns, rows)
        precondition(a.count >= rows * columns, "gemv: a has \(a.count) elements, needs \(rows * columns)")
        precondition(x.count >= xCount, "gemv: x has \(x.count) elements, needs \(xCount)")
        precondition(y.count >= yCount, "gemv: y has \(y.count) elements, needs \(yCount)")
        S.blasRoutines.gemv(
            rows: m, columns: n, a.baseAddress, transpose: transpose, x.baseAddress, y.baseAddress,
            alpha: alpha, beta: beta
        )
    }

    private static func gemm<S: BLASScalar>(
        m: Int, n: Int, k: Int, a: UnsafeBufferPointer<S>, transposeA: Bool, b: UnsafeBufferPointer<S>,
        transposeB: Bool, c: UnsafeMutableBufferPointer<S>, alpha: S, beta: S
    ) {
        let m32 = kernelInt(m, "m"), n32 = kernelInt(n, "n"), k32 = kernelInt(k, "k")
        precondition(a.count >= m * k, "gemm: a has \(a.count) elements, needs \(m * k)")
        precondition(b.count >= k * n, "gemm: b has \(b.count) elements, needs \(k * n)")
        precondition(c.count >= m * n, "gemm: c has \(c.count) elements, needs \(m * n)")
        S.blasRoutines.gemm(
            m: m32, n: n32, k: k32, a.baseAddress, transposeA: transposeA, b.baseAddress, transposeB: transposeB,
            c.baseAddress, alpha: alpha, beta: beta
        )
    }

    private static func axpy<S: BLASScalar>(count: Int, alpha: S, x: UnsafeBufferPointer<S>, y: UnsafeMutableBufferPointer<S>) {
        precondition(count >= 0 && x.count >= count && y.count >= count, "axpy: count \(count) exceeds x (\(x.count)) or y (\(y.count))")
        S.blasRoutines.axpy(count: count, alpha: alpha, x.baseAddress, y.baseAddress)
    }

    private static func dot<S: BLASScalar>(count: Int, x: UnsafeBufferPointer<S>, y: UnsafeBufferPointer<S>) -> S {
        precondition(count >= 0 && x.count >= count && y.count >= count, "dot: count \(count) exceeds x (\(x.count)) or y (\(y.count))")
        return S.blasRoutines.dot(count: count, x.baseAddress, y.baseAddress)
    }

    /// A non-negative dimension that fits in a 32-bit BLAS integer.
    private static func kernelInt(_ value: Int, _ name: String) -> Int32 {
        guard value >= 0, let converted = Int32(exactly: value) else {
            preconditionFailure("BLASKernels: \(name) = \(value) must be in 0...\(Int32.max)")
        }
        return converted
    }
}
