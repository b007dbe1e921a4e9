import Foundation
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

/// Issue 16, item 9: deleting donations deletes the feedback that names
/// targets only they made (the store checks: `FeedbackScrubbingConformance`);
/// here the target keys it reads back.
@Suite("Feedback of deleted donations")
struct FeedbackScrubbingTests {
    @Test func targetKeysParseBackToTheirIntentAndNames() {
        let key = TargetKey(app: "com.a", intent: "Log:Intent", parameters: ["n%o,te": .string("a=b"), "x": .int(1)])
        let parts = key.intentAndParameterNames
        #expect(parts?.intent == "Log:Intent")
        #expect(parts?.parameterNames.sorted() == ["n%o,te", "x"])
        #expect(key.isMade(app: "com.a", intent: "Log:Intent", parameters: ["n%o,te": .string("a=b"), "x": .int(1), "y": .bool(true)],
                           names: ["n%o,te", "x"]))
        #expect(!key.isMade(app: "com.a", intent: "Log:Intent", parameters: ["n%o,te": .string("a=c"), "x": .int(1)], names: ["n%o,te", "x"]))
    }
}
