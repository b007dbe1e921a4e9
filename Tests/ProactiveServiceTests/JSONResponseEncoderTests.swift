import Foundation
import ProactiveCore
@testable import ProactiveService
import Testing

/// The Codable answers' bytes are the ones the API documents: members in declaration order,
/// integers without a fraction, nil as null unless the type leaves the member out.
@Suite("Service: Codable answers")
struct JSONResponseEncoderTests {
    static func text(_ value: some Encodable) throws -> String { JSONWriter.string(try JSONResponseEncoder.json(value)) }

    @Test("order, integers, null and left-out members")
    func bytes() throws {
        let status = FocusStatusAnswer(
            at: Instant(date: Date(timeIntervalSince1970: 1_795_000_000)), focus: nil, until: nil,
            apps: [FocusStatusAnswer.App(app: "com.example.mail", values: .object([("account", .string("work"))]), configured: true,
                                         predicate: nil, badge: 2)])
        #expect(try Self.text(status) == #"{"at":"2026-11-18T11:06:40Z","focus":null,"until":null,"apps":[{"app":"com.example.mail","values":{"account":"work"},"configured":true,"badge":2}]}"#)
        let predicted = PredictAnswer(user: "me", at: Instant(date: Date(timeIntervalSince1970: 0), utcOffset: -8 * 3600), clock: "UTC",
                                      model: "blend", context: .object([]), activity: 0.5, note: nil,
                                      suggestions: [PredictAnswer.Row(target: "a", summary: "A", probability: 0.25, why: ["b"])])
        #expect(try Self.text(predicted) == #"{"user":"me","at":"1969-12-31T16:00:00-08:00","clock":"UTC","model":"blend","context":{},"activity":0.5,"note":null,"suggestions":[{"target":"a","summary":"A","probability":0.25,"why":["b"]}]}"#)
        // A JSON value the engine wrote is carried as it is.
        #expect(try Self.text(DefinitionsAnswer(definitions: [.object([("z", .int(1)), ("a", .null)])])) == #"{"definitions":[{"z":1,"a":null}]}"#)
    }

    @Test("the donations batch and delete answers: tallies, then each line in order; reason and field only when there are")
    func batchAndDelete() throws {
        var batch = BatchAnswer()
        batch.append(line: 1, .stored)
        batch.append(line: 2, .duplicate)
        batch.append(line: 4, .rejected, reason: "unknown field", field: "paramters")
        batch.append(line: 5, .rejected, reason: "invalid JSON at byte 1: unexpected end")
        #expect(try Self.text(batch) == #"{"stored":1,"duplicates":1,"rejected":2,"results":[{"line":1,"status":"stored"},{"line":2,"status":"duplicate"},"#
            + #"{"line":4,"status":"rejected","reason":"unknown field","field":"paramters"},{"line":5,"status":"rejected","reason":"invalid JSON at byte 1: unexpected end"}]}"#)
        #expect(try Self.text(BatchAnswer()) == #"{"stored":0,"duplicates":0,"rejected":0,"results":[]}"#)
        #expect(try Self.text(DeletedAnswer(deleted: 3)) == #"{"deleted":3}"#)
    }
}
