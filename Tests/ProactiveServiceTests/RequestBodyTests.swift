import Foundation
import Hummingbird
import ProactiveCore
@testable import ProactiveService
import Testing

/// Request bodies are Decodable types read by one decoder (`JSONRequestDecoder`): every refusal names
/// the field and says what was expected.
@Suite("Service: request bodies")
struct RequestBodyTests {
    /// The 400 a body is refused with, as (field, message); nil when it decodes.
    static func refusal<T: Decodable>(_ type: T.Type, _ body: String) throws -> (field: String?, message: String)? {
        do {
            _ = try JSONRequestDecoder.decode(type, from: try JSONParser.parse(body))
            return nil
        } catch let error as APIError {
            #expect(error.status == .badRequest)
            return (error.field, error.message)
        }
    }

    @Test("unknown, missing and ill-typed members: the field, and what was expected")
    func refusalsNameTheField() throws {
        let cases: [(String, String?, String)] = [
            (#"{"usr": "me"}"#, "usr", #"unknown field (did you mean "user"?)"#),
            (#"{"colour": "red"}"#, "colour", "unknown field (the fields are user, at, context, k)"),
            (#"{"k": "four"}"#, "k", "must be an integer, found a string"),
            (#"{"k": 2.5}"#, "k", "must be an integer, found a number"),
            (#"{"k": 0}"#, "k", "must be an integer from 1 to 100"),
            (#"{"user": null}"#, "user", "must be a string, found null"),
            (#"{"user": ""}"#, "user", "must not be empty"),
            (#"{"context": {"focus": 1}}"#, "context.focus", "must be a string, found an integer"),
            (#"{"context": []}"#, "context", "must be an object of strings, found an array"),
            (#"[1]"#, nil, "the body must be a JSON object, found an array"),
        ]
        for (body, field, message) in cases {
            let refused = try #require(try Self.refusal(Question.self, body), "\(body)")
            #expect(refused.field == field, "\(body)")
            #expect(refused.message == message, "\(body)")
        }
        // `developer` belongs to the suggestions' question, not predict's.
        #expect(try Self.refusal(Question.self, #"{"developer": true}"#)?.field == "developer")
        #expect(try Self.refusal(SuggestionQuestion.self, #"{"developer": true, "k": 8}"#) == nil)
        #expect(try Self.refusal(SuggestionQuestion.self, #"{"developer": "yes"}"#)?.message == "must be true or false, found a string")
    }

    @Test("the stack, Focus, notification and Focus filter bodies refuse the same way")
    func otherBodies() throws {
        let stackMissing = try #require(try Self.refusal(StackQuestion.self, #"{"user": "me"}"#))
        #expect(stackMissing.field == "widgets" && stackMissing.message == "missing (required, an array of strings)")
        let stackItem = try #require(try Self.refusal(StackQuestion.self, #"{"widgets": ["weather", 3]}"#))
        #expect(stackItem.field == "widgets[1]" && stackItem.message == "must be a string, found an integer")
        #expect(try Self.refusal(StackQuestion.self, #"{"widgets": []}"#)?.field == "widgets")
        #expect(try Self.refusal(StackQuestion.self, #"{"widgets": ["weather"], "k": 4}"#)?.field == "k")  // the stack has no k
        #expect(try Self.refusal(StackQuestion.self, #"{"widgets": ["weather"], "smartRotat": true}"#)?.message
            == #"unknown field (did you mean "smartRotate"?)"#)

        // null turns Focus off; absent says nothing.
        let off = try JSONRequestDecoder.decode(FocusChange.self, from: try JSONParser.parse(#"{"focus": null}"#))
        #expect(off.focus == nil)
        #expect(try Self.refusal(FocusChange.self, "{}")?.field == "focus")
        #expect(try Self.refusal(FocusChange.self, #"{"focus": "work", "at": "noon"}"#)?.field == "at")

        #expect(try Self.refusal(NotificationQuestion.self, #"{"criteria": {}}"#)?.message == "missing (required, a string)")
        #expect(try Self.refusal(NotificationQuestion.self, #"{"app": "a", "criteria": {"k": 1}}"#)?.field == "criteria.k")

        let change = try JSONRequestDecoder.decode(FocusFilterChange.self, from: try JSONParser.parse(
            #"{"set": {"b": true, "a": 2, "c": null}, "unset": ["d"]}"#))
        #expect(change.set.map { $0.name } == ["a", "b"] && change.set.map { $0.value } == ["2", "true"])
        #expect(change.unset == ["c", "d"])
        #expect(try Self.refusal(FocusFilterChange.self, #"{"set": {"a": [1]}}"#)?.field == "set.a")
        #expect(try Self.refusal(FocusFilterChange.self, #"{"unset": "a"}"#)?.message == "must be an array of strings, found a string")
    }

    @Test("over HTTP: a misspelled field of a question or a Focus filter is a 400 naming it and its nearest field")
    func overHTTP() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            let predict = try await client.send(.post, "/v1/predict", credential: fixture.owner, body: #"{"user": "me", "contxt": {}}"#)
            #expect(predict.status == .badRequest)
            #expect(predict.json?.string("error", "field") == "contxt")
            #expect(predict.json?.string("error", "message") == #"unknown field (did you mean "context"?)"#, "\(predict.text)")
            let filter = #"{"title": "Units", "parameters": [{"name": "units", "type": "entity", "options": [{"id": "metric", "dispaly": "Metric"}]}]}"#
            let declared = try await client.send(.put, "/v1/apps/com.example.weather/focus-filter", credential: fixture.owner, body: filter)
            #expect(declared.json?.string("error", "message") == #"unknown field (did you mean "display"?)"#, "\(declared.text)")
        }
    }
}
