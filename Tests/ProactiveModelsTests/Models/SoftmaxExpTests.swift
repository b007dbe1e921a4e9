import Foundation
@testable import ProactiveModels
import Testing

/// The softmax's own exponential against the C library's, over the range it is used on.
@Suite("Softmax exponential")
struct SoftmaxExpTests {
    @Test func agreesWithTheLibraryExpWithinTwoUlp() {
        var worst = 0.0
        var x = -708.0
        while x <= 0 {
            let ours = Softmax.expNonPositive(x)
            let reference = Foundation.exp(x)
            worst = max(worst, abs(ours - reference) / reference.ulp)
            x += 0.000_731
        }
        for x in [0.0, -0.0, -1e-300, -0.346_573_590_279_972_6, -0.346_573_590_279_972_7, -1, -700.5] {
            worst = max(worst, abs(Softmax.expNonPositive(x) - Foundation.exp(x)) / Foundation.exp(x).ulp)
        }
        #expect(worst <= 2, "largest error \(worst) ulp")
        #expect(Softmax.expNonPositive(0) == 1)
    }

    @Test func underflowsToZero() {
        #expect(Softmax.expNonPositive(-709) == 0)
        #expect(Softmax.expNonPositive(-.infinity) == 0)
        #expect(Softmax.expNonPositive(-1e300) == 0)
    }

    @Test func normalizeSumsToOneAndKeepsTheOrder() {
        var scores: [Double] = [-3.0, 0.5, 2, -.infinity, 1.999]
        Softmax.normalize(&scores)
        #expect(abs(scores.reduce(0, +) - 1) < 1e-15)
        #expect(scores[3] == 0)
        #expect(scores[2] > scores[4] && scores[4] > scores[1] && scores[1] > scores[0])
    }

    /// The four-lane maximum the softmax shifts by equals `max()`, NaNs and infinities included.
    @Test(arguments: [0, 1, 7, 8, 9, 1_000, 1_003])
    func laneMaximumEqualsMax(count: Int) {
        var random = SeededGenerator(seed: UInt64(count) + 5)
        let base = (0 ..< count).map { _ in (random.unit() - 0.5) * 80 }
        var cases = [base]
        if count > 0 {
            for position in Set([0, 1, count / 2, count - 1]) where position < count {
                for special in [Double.nan, .infinity, -.infinity] {
                    var scores = base
                    scores[position] = special
                    cases.append(scores)
                }
            }
            cases.append([Double](repeating: -.infinity, count: count))
        }
        for scores in cases {
            let expected = scores.max()
            let lanes = Softmax.largest(scores)
            #expect(lanes == expected || (lanes?.isNaN == true && expected?.isNaN == true), "\(count): \(String(describing: lanes)) vs \(String(describing: expected))")
        }
    }

    /// The AVX2 kernel (where the CPU has it) writes the same bits as the Swift loop, over the
    /// whole range, the underflow edge, infinities and NaN.
    @Test func vectorKernelIsBitIdenticalToTheSwiftLoop() {
        var random = SeededGenerator(seed: 99)
        var scores = (0 ..< 20_011).map { _ in -random.unit() * 720 }
        scores += [0, -0.0, -708, -708.000_000_000_1, -707.999_999_999_9, -709, -.infinity, .nan, -1e-300, -0.346_573_590_279_972_6]
        for maximum in [0.0, 3.5, -2.25] {
            var kernel = scores.map { $0 + maximum }
            var loop = kernel
            kernel.withUnsafeMutableBufferPointer { Softmax.exponentials($0, shiftedBy: maximum) }
            loop.withUnsafeMutableBufferPointer { Softmax.exponentials($0, shiftedBy: maximum, allowingKernel: false) }
            #expect(zip(kernel, loop).allSatisfy { $0.bitPattern == $1.bitPattern }, "maximum \(maximum)")
        }
    }
}
