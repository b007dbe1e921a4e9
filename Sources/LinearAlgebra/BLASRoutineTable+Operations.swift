internal import CBLAS

// MARK: - Shared raw-pointer operations
//
// Every public wrapper (array functions, `Matrix` methods, `BLASKernels`)
// funnels into these, so the CBLAS calling conventions, the empty-operand
// edge cases and the 32-bit chunking live in one place. Callers have already
// checked that the buffers are large enough.

extension BLASRoutineTable where Scalar: BLASScalar {
    /// The largest count one level-1 call may take (`blasint` is 32-bit).
    static var maxLevel1Count: Int { Int(Int32.max) }

    // MARK: Level 1 (contiguous, any length)

    /// Calls `body(offset, length)` for consecutive chunks of `0..<count`
    /// that each fit in a 32-bit BLAS count.
    private func forEachChunk(_ count: Int, limit: Int, _ body: (Int, Int32) -> Void) {
        var offset = 0
        while offset < count {
            let length = min(limit, count - offset)
            body(offset, Int32(length))
            offset += length
        }
    }

    /// Σ x[i] * y[i] over `count` elements.
    func dot(count: Int, _ x: Pointer, _ y: Pointer, chunkLimit: Int = maxLevel1Count) -> Scalar {
        var sum: Scalar = 0
        forEachChunk(count, limit: chunkLimit) { offset, length in
            sum += blasDot(length, x.map { $0 + offset }, 1, y.map { $0 + offset }, 1)
        }
        return sum
    }

    /// y[i] += alpha * x[i] over `count` elements.
    func axpy(count: Int, alpha: Scalar, _ x: Pointer, _ y: MutablePointer, chunkLimit: Int = maxLevel1Count) {
        forEachChunk(count, limit: chunkLimit) { offset, length in
            blasAxpy(length, alpha, x.map { $0 + offset }, 1, y.map { $0 + offset }, 1)
        }
    }

    /// x[i] *= alpha over `count` elements.
    func scal(count: Int, alpha: Scalar, _ x: MutablePointer, chunkLimit: Int = maxLevel1Count) {
        forEachChunk(count, limit: chunkLimit) { offset, length in
            blasScal(length, alpha, x.map { $0 + offset }, 1)
        }
    }

    /// The Euclidean norm of `count` elements; chunk norms are combined with
    /// scaling so the result does not overflow when the true norm does not.
    func nrm2(count: Int, _ x: Pointer, chunkLimit: Int = maxLevel1Count) -> Scalar {
        var norms: [Scalar] = []
        forEachChunk(count, limit: chunkLimit) { offset, length in
            norms.append(blasNrm2(length, x.map { $0 + offset }, 1))
        }
        if norms.count <= 1 { return norms.first ?? 0 }
        if norms.contains(where: \.isNaN) { return .nan }
        let scale = norms.max()!
        guard scale > 0, scale.isFinite else { return scale }
        let sumOfSquares = norms.reduce(Scalar(0)) { $0 + ($1 / scale) * ($1 / scale) }
        return scale * sumOfSquares.squareRoot()
    }

    /// y = beta * y over `count` elements, with `beta == 0` meaning "overwrite
    /// with zeros" (so NaN or garbage in `y` does not survive), as in BLAS.
    func scaleOutput(count: Int, beta: Scalar, _ y: MutablePointer) {
        guard let y, count > 0, beta != 1 else { return }
        if beta == 0 {
            y.update(repeating: 0, count: count)
        } else {
            scal(count: count, alpha: beta, y)
        }
    }

    // MARK: Level 2 and 3 (row-major)

    /// y = alpha * op(A) x + beta * y, A row-major `rows` x `columns`.
    ///
    /// `x` has `transpose ? rows : columns` elements and `y` has
    /// `transpose ? columns : rows`.
    func gemv(
        rows: Int32, columns: Int32, _ a: Pointer, transpose: Bool,
        _ x: Pointer, _ y: MutablePointer, alpha: Scalar, beta: Scalar
    ) {
        let (outputCount, innerCount) = transpose ? (columns, rows) : (rows, columns)
        guard outputCount > 0 else { return }
        guard innerCount > 0 else {
            // BLAS may quick-return without applying beta; do it explicitly.
            scaleOutput(count: Int(outputCount), beta: beta, y)
            return
        }
        blasGemv(
            CblasRowMajor, transpose.cblasTranspose, rows, columns, alpha,
            a, leadingDimension(columns), x, 1, beta, y, 1
        )
    }

    /// C = alpha * op(A) op(B) + beta * C, all row-major, C `m` x `n`, op(A)
    /// `m` x `k`, op(B) `k` x `n`.
    ///
    /// A is stored `transposeA ? k x m : m x k`, B `transposeB ? n x k : k x n`.
    func gemm(
        m: Int32, n: Int32, k: Int32,
        _ a: Pointer, transposeA: Bool, _ b: Pointer, transposeB: Bool,
        _ c: MutablePointer, alpha: Scalar, beta: Scalar
    ) {
        guard m > 0, n > 0 else { return }
        guard k > 0 else {
            scaleOutput(count: Int(m) * Int(n), beta: beta, c)
            return
        }
        blasGemm(
            CblasRowMajor, transposeA.cblasTranspose, transposeB.cblasTranspose, m, n, k, alpha,
            a, leadingDimension(transposeA ? m : k),
            b, leadingDimension(transposeB ? k : n),
            beta, c, leadingDimension(n)
        )
    }
}
