import Foundation
@testable import ProactiveModels
import Testing

/// The profile's product (`LogProfileMatrix.multiply`, the C kernel `proactive_weighted_columns`)
/// and the softmax kernel give the bits of the plain loops they stand for.
@Suite("Scoring kernels")
struct ScoringKernelTests {
    /// A log-profile matrix of `rows` targets filled with seeded values (three context values,
    /// two extra denominator columns), and a moment's dense weights with some zeros.
    static func matrix(rows: Int, seed: UInt64) -> (matrix: LogProfileMatrix, x: [Double], previous: LogProfileMatrix.PreviousTarget?) {
        let layout = FeatureLayout(timeKernels: 24, contextCount: 3, targetCount: rows)
        var matrix = LogProfileMatrix(layout: layout, extraColumns: 2)
        var random = SeededGenerator(seed: seed)
        for t in 0 ..< rows {
            for j in 0 ..< matrix.width { matrix[t, j] = (random.unit() - 0.7) * 12 }
        }
        let x = (0 ..< matrix.denseWidth).map { p in p % 5 == 3 ? 0 : (random.unit() - 0.3) * 2 }
        let previous = rows > 0 ? (target: random.integer(in: 0 ... rows - 1), weight: random.unit()) : nil
        return (matrix, x, previous)
    }

    /// Σ in column order from 0, one fused multiply-add per non-zero weight, as the kernel is specified.
    static func reference(_ matrix: LogProfileMatrix, x: [Double], previous: LogProfileMatrix.PreviousTarget?) -> [Double] {
        (0 ..< matrix.rows).map { t in
            var total = 0.0
            for (p, j) in matrix.denseColumns.enumerated() where x[p] != 0 { total = total.addingProduct(x[p], matrix[t, j]) }
            if let (target, weight) = previous, weight != 0 {
                total = total.addingProduct(weight, matrix[t, matrix.previousColumns.lowerBound + target])
            }
            return total
        }
    }

    /// Row counts around the vector blocks (4, 8, 16 and 32 rows) and their tails.
    @Test(arguments: [1, 3, 4, 7, 8, 15, 16, 31, 32, 33, 47, 1_000, 1_003])
    func weightedColumnsAreTheColumnOrderSum(rows: Int) {
        let (matrix, x, previous) = Self.matrix(rows: rows, seed: UInt64(rows))
        for previous in [previous, nil] {
            var y = [Double](repeating: .nan, count: rows)
            y.withUnsafeMutableBufferPointer { matrix.multiply(dense: x, previous: previous, into: $0) }
            let expected = Self.reference(matrix, x: x, previous: previous)
            #expect(zip(y, expected).allSatisfy { $0.bitPattern == $1.bitPattern }, "\(rows) rows")
        }
    }

    /// A product of more than half a MiB of columns (5,000 rows, about 32 non-zero weights), where the
    /// kernel prefetches each column ahead: still the column-order sum, bit for bit, the previous
    /// target's column partly stored and partly the absent entry.
    @Test func prefetchingProductIsTheColumnOrderSum() {
        let rows = 5_000
        var matrix = LogProfileMatrix(layout: FeatureLayout(timeKernels: 24, contextCount: 3, targetCount: rows), extraColumns: 2,
                                      absentTransition: -2.5)
        var random = SeededGenerator(seed: 51)
        for t in 0 ..< rows {
            for j in matrix.denseColumns { matrix[t, j] = (random.unit() - 0.7) * 12 }
        }
        let previous = (target: 17, weight: 0.75)
        for t in Swift.stride(from: 0, to: rows, by: 7) { matrix[t, matrix.previousColumns.lowerBound + previous.target] = random.unit() * -3 }
        let x = (0 ..< matrix.denseWidth).map { p in p % 5 == 3 ? 0 : (random.unit() - 0.3) * 2 }
        #expect(x.filter { $0 != 0 }.count * rows * MemoryLayout<Float>.size > 1 << 19, "large enough to prefetch")
        var y = [Double](repeating: .nan, count: rows)
        y.withUnsafeMutableBufferPointer { matrix.multiply(dense: x, previous: previous, into: $0) }
        let expected = Self.reference(matrix, x: x, previous: previous)
        #expect(zip(y, expected).allSatisfy { $0.bitPattern == $1.bitPattern })
    }

    /// No non-zero weight: every score is 0 (the kernel still writes every row).
    @Test func allZeroWeightsWriteZeros() {
        let (matrix, x, _) = Self.matrix(rows: 37, seed: 3)
        var y = [Double](repeating: .nan, count: 37)
        y.withUnsafeMutableBufferPointer { matrix.multiply(dense: x.map { _ in 0 }, previous: (target: 2, weight: 0), into: $0) }
        #expect(y.allSatisfy { $0 == 0 })
    }

    /// Entries are stored in single precision: set to a double, read back as its nearest Float.
    @Test func entriesRoundToFloat() {
        var (matrix, _, _) = Self.matrix(rows: 5, seed: 4)
        let value = -3.141_592_653_589_793
        matrix[2, 0] = value
        matrix[2, matrix.previousColumns.lowerBound + 4] = value
        #expect(matrix[2, 0] == Double(Float(value)))
        #expect(matrix[2, matrix.previousColumns.lowerBound + 4] == Double(Float(value)))
    }

    /// The softmax kernel (where the CPU has AVX-512 or AVX2) writes the bits of the Swift loops:
    /// lengths around the lane counts, -∞ and underflowing scores included.
    @Test(arguments: [1, 2, 3, 4, 5, 8, 9, 1_000, 1_003])
    func softmaxKernelIsBitIdenticalToTheSwiftLoops(count: Int) {
        var random = SeededGenerator(seed: UInt64(count) + 40)
        var scores = (0 ..< count).map { _ in (random.unit() - 0.8) * 60 }
        if count > 4 {
            scores[1] = -.infinity
            scores[3] = -900
        }
        let maximum = scores.max()!
        var kernel = scores
        var loop = scores
        kernel.withUnsafeMutableBufferPointer { Softmax.normalize($0, shiftedBy: maximum) }
        loop.withUnsafeMutableBufferPointer { Softmax.normalize($0, shiftedBy: maximum, allowingKernel: false) }
        #expect(zip(kernel, loop).allSatisfy { $0.bitPattern == $1.bitPattern }, "\(count) scores")
        #expect(abs(kernel.reduce(0, +) - 1) < 1e-14)
    }

    /// The largest score from the C kernel (four accumulators of eight or four lanes) is the
    /// Swift lanes' value, and the whole softmax the same bits: lengths around the blocks
    /// (8, 16, 32 and 64 values after the first), the maximum at the start, the end and inside,
    /// a NaN inside (never enters) and first (stays: uniform probabilities), -∞ and both zeros.
    @Test(arguments: [8, 9, 16, 17, 33, 64, 65, 1_000, 1_003, 10_000])
    func largestKernelFindsTheSwiftLanesValue(count: Int) {
        var random = SeededGenerator(seed: UInt64(count) + 90)
        let base = (0 ..< count).map { _ in (random.unit() - 0.8) * 60 }
        var cases: [[Double]] = [base]
        for position in [0, count / 2, count - 1] {
            var peaked = base
            peaked[position] = 25
            cases.append(peaked)
        }
        var withNaN = base
        withNaN[count / 3 + 1] = .nan
        withNaN[2] = -.infinity
        cases.append(withNaN)
        var leadingNaN = base
        leadingNaN[0] = .nan
        cases.append(leadingNaN)
        // Every score at most zero, zeros of both signs among them: the maximum is a zero.
        var zeros = base.map { -abs($0) }
        zeros[1] = -0.0
        zeros[count - 1] = 0.0
        cases.append(zeros)
        for scores in cases {
            let kernel = Softmax.largest(scores)
            let lanes = Softmax.largest(scores, allowingKernel: false)
            #expect(kernel == lanes || (kernel!.isNaN && lanes!.isNaN), "\(count) scores")
            var viaKernel = scores
            var viaLoops = scores
            Softmax.normalize(&viaKernel)
            Softmax.normalize(&viaLoops, allowingKernel: false)
            #expect(zip(viaKernel, viaLoops).allSatisfy { $0.bitPattern == $1.bitPattern }, "\(count) scores")
        }
    }
}
