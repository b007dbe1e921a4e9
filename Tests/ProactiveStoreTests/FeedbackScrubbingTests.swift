import Foundation
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

/// Issue 16, item 9: deleting donations deletes the feedback that names
/// targets only they made, so their parameter values leave the store.
@Suite("Feedback of deleted donations")
struct FeedbackScrubbingTests {
    static let health = "com.health"
    static let day = Date(timeIntervalSince1970: sampleDay)

    static func feedback(_ kind: String, target: String? = nil, widgetConfiguration: String? = nil, action: String? = nil,
                         app: String = health, user: String = "u1") -> StoredFeedback {
        var members = [#""date":"2026-11-20T08:00:00Z""#, #""kind":"\#(kind)""#]
        var scope = "app:" + app
        if let target { members.append(#""target":"\#(target)","app":"\#(app)""#); scope = "target:" + target }
        if let widgetConfiguration {
            members.append(#""widget":{"app":"\#(app)","widgetKind":"log","configuration":\#(widgetConfiguration)}"#)
            scope = "widget:\(app)/log[...]"
        }
        if target == nil, widgetConfiguration == nil { members.append(#""app":"\#(app)""#) }
        if let action { members.append(#""action":\#(action)"#) }
        return StoredFeedback(user: user, date: day, kind: kind, scope: scope, app: app, eventJSON: "{" + members.joined(separator: ",") + "}")
    }

    static let secretTarget = "com.health:LogIntent(note=SECRET_X)"
    static let secretConfiguration = #"{"intent":"LogIntent","parameters":{"note":"SECRET_X"}}"#

    func populated() throws -> (SQLiteDonationStore, SQLiteDeclarationStore) {
        let database = try ProactiveDatabase.inMemory()
        let donations = SQLiteDonationStore(database: database)
        let declarations = SQLiteDeclarationStore(database: database)
        try donations.append([
            sample(app: Self.health, intent: "LogIntent", identifier: "h1", parameters: ["note": .string("SECRET_X")]),
            sample(app: Self.health, intent: "LogIntent", minutes: 1, identifier: "h2", parameters: ["note": .string("keep")]),
            sample(app: Self.health, intent: "LogIntent", minutes: 2, identifier: "h3", parameters: ["note": .string("keep")]),
            sample(user: "u2", app: Self.health, intent: "LogIntent", identifier: "h4", parameters: ["note": .string("SECRET_X")]),
        ], duplicates: .fail)
        try declarations.appendFeedback([
            Self.feedback("tap", target: Self.secretTarget, action: Self.secretConfiguration),
            Self.feedback("dismiss", widgetConfiguration: Self.secretConfiguration),
            Self.feedback("tap", target: "com.health:open", action: Self.secretConfiguration),  // an action naming the value
            Self.feedback("dismiss", target: "com.health:LogIntent(note=keep)"),
            Self.feedback("never"),
            Self.feedback("dismiss", target: Self.secretTarget, user: "u2"),
            Self.feedback("dismiss", target: "com.health:LogIntent(note=never-donated)"),
        ])
        return (donations, declarations)
    }

    func kept(_ declarations: SQLiteDeclarationStore, _ user: String = "u1") throws -> [String] {
        try declarations.feedback(user: user).map { "\($0.kind) \($0.scope)" }
    }

    @Test func deletingByIdentifierDeletesTheFeedbackNamingOnlyThatDonation() throws {
        let (donations, declarations) = try populated()
        #expect(try donations.delete(.identifiers(["h1"], app: Self.health)) == 1)
        #expect(try kept(declarations) == ["dismiss target:com.health:LogIntent(note=keep)", "never app:com.health",
                                           "dismiss target:com.health:LogIntent(note=never-donated)"])
        #expect(try !declarations.feedback(user: "u1").contains { $0.eventJSON.contains("SECRET_X") })
        #expect(try kept(declarations, "u2") == ["dismiss target:\(Self.secretTarget)"])  // u2 still donates it
    }

    @Test func feedbackStaysWhileAnotherDonationStillMakesItsTarget() throws {
        let (donations, declarations) = try populated()
        #expect(try donations.delete(.identifiers(["h2"], app: Self.health)) == 1)
        #expect(try kept(declarations).count == 7 - 1)  // h3 still makes note=keep
        #expect(try donations.delete(.identifiers(["h3"], app: Self.health)) == 1)
        #expect(try !kept(declarations).contains("dismiss target:com.health:LogIntent(note=keep)"))
    }

    @Test func deletingTheAppKeepsOnlyWhatNoDonationMade() throws {
        let (donations, declarations) = try populated()
        #expect(try donations.delete(.matching(DonationFilter(user: "u1", app: Self.health))) == 3)
        #expect(try kept(declarations) == ["never app:com.health", "dismiss target:com.health:LogIntent(note=never-donated)"])
        #expect(try kept(declarations, "u2").count == 1)
    }

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
