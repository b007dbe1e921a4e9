import Foundation
import Testing
import ProactiveCore
@testable import ProactiveRanking

@Suite("Focus filters: notifications, badges, suggestions")
struct FocusFilterDecisionTests {
    /// Mail filtered to the personal account in the Personal Focus.
    static func personalMail() throws -> FocusFilterEngine {
        var engine = FocusFilterEngine()
        engine.declare(try FocusFilter.parse(mailFilterJSON))
        try engine.configure(app: "com.example.mail", focus: "Personal", set: ["account": personalAccount])
        return engine
    }

    static func notification(_ criteria: String) throws -> FocusNotification {
        FocusNotification(app: "com.example.mail", criteria: try FilterCriteria(parsing: criteria))
    }

    // MARK: Notifications

    @Test func personalFocusSilencesAWorkAccountNotification() throws {
        let engine = try Self.personalMail()
        #expect(engine.activePredicate(app: "com.example.mail", focus: "personal")?.description == #"account == "personal""#)

        let work = engine.deliver(try Self.notification("account=work"), activeFocus: "Personal")
        #expect(!work.isDelivered)
        #expect(work.reason.hasPrefix(#"criteria account=work do not match account == "personal""#))

        #expect(engine.deliver(try Self.notification("account=personal"), activeFocus: "personal").isDelivered)
        // Criteria that do not speak to the predicate's key do not match it.
        #expect(!engine.deliver(try Self.notification("thread=launch"), activeFocus: "personal").isDelivered)
        // No criteria, no Focus, or a Focus without a predicate: delivered.
        #expect(engine.deliver(FocusNotification(app: "com.example.mail"), activeFocus: "personal").isDelivered)
        #expect(engine.deliver(try Self.notification("account=work"), activeFocus: nil).reason == "no Focus is on")
        #expect(engine.deliver(try Self.notification("account=work"), activeFocus: "work").isDelivered)
        // Another app's notification is never judged by Mail's filter.
        #expect(engine.deliver(FocusNotification(app: "com.example.chat", criteria: FilterCriteria(["account": "work"])), activeFocus: "personal").isDelivered)
    }

    @Test func anAppContextPredicateOverridesTheDerivedOne() throws {
        var engine = try Self.personalMail()
        try engine.setAppContext(app: "com.example.mail", focus: "personal",
                                 AppContext(filterPredicate: try FilterPredicate(parsing: "account in [personal, family]"), badgeCount: 3))
        #expect(engine.deliver(try Self.notification("account=family"), activeFocus: "personal").isDelivered)
        #expect(!engine.deliver(try Self.notification("account=work"), activeFocus: "personal").isDelivered)
        #expect(engine.badgeCount(app: "com.example.mail", activeFocus: "personal") == 3)
        #expect(engine.badgeCount(app: "com.example.mail", activeFocus: "work") == nil)
        #expect(throws: FocusError.self) {
            try engine.setAppContext(app: "com.example.mail", focus: "personal", AppContext(badgeCount: -1))
        }
        #expect(throws: FocusError.self) {
            try engine.setAppContext(app: "com.example.chat", focus: "personal", AppContext(badgeCount: 1))
        }
    }

    // MARK: Suggestions and widgets

    @Test func personalFocusDoesNotSuggestWorkAccountTargets() throws {
        let engine = try Self.personalMail()
        let resolver = TargetResolver()
        let date = Date(timeIntervalSince1970: 1_795_000_000)
        func target(_ parameters: [String: ParameterValue]) -> Target {
            resolver.target(for: Donation(app: "com.example.mail", intent: "SendMailIntent", parameters: parameters, date: date))
        }
        let workMail = target(["account": .string("work"), "to": .string("team")])
        let personalMail = target(["account": .entity(id: "personal", display: "Personal"), "to": .string("mom")])
        let open = target([:])
        let otherApp = resolver.target(for: Donation(app: "com.example.chat", intent: "Send", parameters: ["account": .string("work")], date: date))

        #expect(!engine.allows(target: workMail, activeFocus: "personal"))
        #expect(engine.decision(app: workMail.app, parameters: workMail.parameters, activeFocus: "personal").reason
                == #"account=work does not match account == "personal" (Focus personal)"#)
        #expect(engine.allows(target: personalMail, activeFocus: "personal"))
        #expect(engine.allows(target: open, activeFocus: "personal"))            // not about an account
        #expect(engine.allows(target: otherApp, activeFocus: "personal"))
        #expect(engine.allows(target: workMail, activeFocus: "work"))
        #expect(engine.allows(target: workMail, activeFocus: nil))

        // The same rule through the ranking's hook, reading parameters back from the target keys.
        for candidate in [workMail, personalMail, open, otherApp] {
            #expect(engine.allows(FocusCandidate(app: candidate.app, target: candidate.key), focus: "Personal", context: [:])
                    == engine.allows(target: candidate, activeFocus: "personal"))
        }
    }

    // MARK: Predicate language

    @Test func predicateTextForms() throws {
        let predicate = try FilterPredicate(parsing: #"account in [personal, "family plan"] and priority != low && team == "a\"b""#)
        #expect(predicate.clauses == [.oneOf(key: "account", values: ["personal", "family plan"]),
                                      .notEquals(key: "priority", value: "low"), .equals(key: "team", value: "a\"b")])
        #expect(try FilterPredicate(parsing: predicate.description) == predicate)
        #expect(predicate.matches(["account": "personal", "priority": "high", "team": "a\"b"], missing: .fails))
        #expect(!predicate.matches(["account": "personal", "team": "a\"b"], missing: .fails))
        #expect(predicate.matches(["account": "personal", "team": "a\"b"], missing: .holds))

        for bad in ["", "account", "account = personal", "account == ", #"account == "open"#, "a == b c == d", "a in [b"] {
            #expect(throws: FocusError.self, "\(bad)") { try FilterPredicate(parsing: bad) }
        }
        let error = #expect(throws: FocusError.self) { try FilterPredicate(parsing: "account ~ work") }
        #expect(error?.description == #"predicate: at position 9: expected ==, != or in after "account""#)
    }

    @Test func criteriaTextForms() throws {
        #expect(try FilterCriteria(parsing: "account=work, thread = launch").values == ["account": "work", "thread": "launch"])
        #expect(try FilterCriteria(parsing: "").isEmpty)
        #expect(try FilterCriteria(parsing: "url=a=b").values == ["url": "a=b"])
        #expect(throws: FocusError.self) { try FilterCriteria(parsing: "work") }
        #expect(throws: FocusError.self) { try FilterCriteria(parsing: "a=1,a=2") }
        #expect(throws: FocusError.self) { try FilterCriteria(parsing: "=1") }
    }
}
