import Foundation
import ProactiveCore
import ProactiveStore
import Testing
@testable import ProactiveEngine

/// The library's errors and descriptions state the problem in the library's terms: no command
/// line option or command (the CLI and the service add their own hints).
@Suite("Engine errors in library terms")
struct EngineErrorTermsTests {
    @Test func aUserWithoutAZoneReadsUTCWithoutACommand() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        let clock = try engine.clock(user: "nobody", at: Date(timeIntervalSince1970: 1_795_564_800))
        #expect(clock.offset == 0)
        #expect(clock.description == "UTC (no zone configured for the user, and no donations)")
    }

    @Test func configuringAnUndeclaredFocusFilterNamesNoCommand() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        #expect(throws: EngineError(.invalidRequest, "com.example.notes has not declared a Focus filter")) {
            try engine.configureFocusFilter(app: "com.example.notes", focus: "work", set: [("folder", "a")], unset: [])
        }
    }
}
