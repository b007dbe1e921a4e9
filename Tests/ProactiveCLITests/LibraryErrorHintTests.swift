@testable import ProactiveCLI
import ProactiveStore
import Testing

/// The library states a problem in its own terms; the command line adds what to run.
@Suite("CLI hints on library errors")
struct LibraryErrorHintTests {
    @Test func aPausedStoreGetsTheCommandThatResumesIt() {
        let paused = StoreError(.recordingPaused, "recording is paused: donations and feedback are refused and nothing was stored")
        #expect(Proactive.hint(for: paused) == " (proactive pause off resumes)")
        // The CLI's own message already names it; other errors get nothing.
        #expect(Proactive.hint(for: StoreError(.recordingPaused, "recording is paused (proactive pause off resumes)")) == "")
        #expect(Proactive.hint(for: StoreError(.invalidRequest, "bad")) == "")
    }
}
