@testable import ProactiveCLI
import Testing

/// The progress lines of evaluate, train and simulate: a rate and the time left.
@Suite("Progress text")
struct ProgressTextTests {
    @Test func rateAndTimeLeft() {
        #expect(ProgressPrinter.rateAndTimeLeft(done: 50, total: 100, seconds: 10) == ", 5/s, about 10 s left")
        #expect(ProgressPrinter.rateAndTimeLeft(done: 10, total: 1_000, seconds: 10) == ", 1/s, about 17 min left")
        #expect(ProgressPrinter.rateAndTimeLeft(done: 100, total: 100, seconds: 4) == ", 25/s")
        #expect(ProgressPrinter.rateAndTimeLeft(done: 0, total: 100, seconds: 4) == "")
    }
}
