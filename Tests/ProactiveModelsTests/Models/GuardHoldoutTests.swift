import Foundation
import Testing
@testable import ProactiveModels

/// Which rows the guard holds out: the latest for a stream, spread at random where rows share instants.
@Suite("Guard holdout")
struct GuardHoldoutTests {
    @Test("a stream holds out its latest rows; a log whose rows share instants holds out rows spread over it")
    func fitting() {
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        let stream = (0 ..< 100).map { start.addingTimeInterval(Double($0) * 60) }
        #expect(WeightGuard.Holdout.fitting(dates: stream) == .latest)
        let aggregated = (0 ..< 100).map { start.addingTimeInterval(Double($0 % 7) * 14_400) }  // 7 instants
        #expect(WeightGuard.Holdout.fitting(dates: aggregated) == .spread)
        let fewShared = stream + [stream[0], stream[1]]  // 4 of 102 share an instant
        #expect(WeightGuard.Holdout.fitting(dates: fewShared) == .latest)
        #expect(WeightGuard.Holdout.fitting(dates: [start]) == .latest)
    }

    @Test("30% held out either way; the spread is deterministic and reaches the first rows")
    func heldOut() {
        #expect(WeightGuard.Holdout.latest.heldOut(count: 10, share: 0.3) == [7, 8, 9])
        let spread = WeightGuard.Holdout.spread.heldOut(count: 100, share: 0.3)
        #expect(spread.count == 30)
        #expect(spread == spread.sorted())
        #expect(spread.first! < 50)
        #expect(spread == WeightGuard.Holdout.spread.heldOut(count: 100, share: 0.3))
        #expect(WeightGuard.Holdout.spread.heldOut(count: 1, share: 0.3).isEmpty)
    }
}
