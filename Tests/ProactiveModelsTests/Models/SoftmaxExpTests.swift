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
}
