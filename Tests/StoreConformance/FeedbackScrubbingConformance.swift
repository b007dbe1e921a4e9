import Foundation
import ProactiveCore
import ProactiveStore
import Testing

// MARK: - Feedback of deleted donations, on every store

/// Deleting donations (by a deletion or by retention) deletes the feedback that names targets only
/// they made, in the same transaction, so their parameter values leave the store (issue 16, item 9):
/// checks on an empty store, run on SQLite (ProactiveStoreTests) and PostgreSQL (ProactivePostgresTests).
public enum FeedbackScrubbingConformance {
    public static let checks: [StoreContractConformance.Check] = [
        .init(name: "deletingByIdentifierDeletesTheFeedbackNamingOnlyThatDonation", run: deletingByIdentifierDeletesTheFeedbackNamingOnlyThatDonation),
        .init(name: "feedbackStaysWhileAnotherDonationStillMakesItsTarget", run: feedbackStaysWhileAnotherDonationStillMakesItsTarget),
        .init(name: "deletingTheAppKeepsOnlyWhatNoDonationMade", run: deletingTheAppKeepsOnlyWhatNoDonationMade),
        .init(name: "retentionScrubsAsADeletionDoes", run: retentionScrubsAsADeletionDoes),
    ]

    public static let health = "com.health"
    public static let day = Date(timeIntervalSince1970: sampleDay)

    /// A feedback event of `user` about `health`: naming a target, a configured widget or a tap's action.
    public static func feedback(_ kind: String, target: String? = nil, widgetConfiguration: String? = nil, action: String? = nil,
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

    /// Four donations of `health` (h1 and u2's h4 making the secret target, h2 and h3 another) and feedback naming them.
    static func populate(_ parts: StoreParts, feedbackAt date: Date = day) throws {
        try parts.donations.append([
            sample(app: health, intent: "LogIntent", identifier: "h1", parameters: ["note": .string("SECRET_X")]),
            sample(app: health, intent: "LogIntent", minutes: 1, identifier: "h2", parameters: ["note": .string("keep")]),
            sample(app: health, intent: "LogIntent", minutes: 2, identifier: "h3", parameters: ["note": .string("keep")]),
            sample(user: "u2", app: health, intent: "LogIntent", identifier: "h4", parameters: ["note": .string("SECRET_X")]),
        ], duplicates: .fail)
        try parts.declarations.appendFeedback([
            feedback("tap", target: secretTarget, action: secretConfiguration),
            feedback("dismiss", widgetConfiguration: secretConfiguration),
            feedback("tap", target: "com.health:open", action: secretConfiguration),  // an action naming the value
            feedback("dismiss", target: "com.health:LogIntent(note=keep)"),
            feedback("never"),
            feedback("dismiss", target: secretTarget, user: "u2"),
            feedback("dismiss", target: "com.health:LogIntent(note=never-donated)"),
        ].map { event in
            var event = event
            event.date = date
            return event
        })
    }

    static func kept(_ parts: StoreParts, _ user: String = "u1") throws -> [String] {
        try parts.declarations.feedback(user: user).map { "\($0.kind) \($0.scope)" }
    }

    public static func deletingByIdentifierDeletesTheFeedbackNamingOnlyThatDonation(_ parts: StoreParts) throws {
        try populate(parts)
        #expect(try parts.donations.delete(.identifiers(["h1"], app: health)) == 1)
        #expect(try kept(parts) == ["dismiss target:com.health:LogIntent(note=keep)", "never app:com.health",
                                    "dismiss target:com.health:LogIntent(note=never-donated)"])
        #expect(try !parts.declarations.feedback(user: "u1").contains { $0.eventJSON.contains("SECRET_X") })
        #expect(try kept(parts, "u2") == ["dismiss target:\(secretTarget)"])  // u2 still donates it
    }

    public static func feedbackStaysWhileAnotherDonationStillMakesItsTarget(_ parts: StoreParts) throws {
        try populate(parts)
        #expect(try parts.donations.delete(.identifiers(["h2"], app: health)) == 1)
        #expect(try kept(parts).count == 7 - 1)  // h3 still makes note=keep
        #expect(try parts.donations.delete(.identifiers(["h3"], app: health)) == 1)
        #expect(try !kept(parts).contains("dismiss target:com.health:LogIntent(note=keep)"))
    }

    public static func deletingTheAppKeepsOnlyWhatNoDonationMade(_ parts: StoreParts) throws {
        try populate(parts)
        #expect(try parts.donations.delete(.matching(DonationFilter(user: "u1", app: health))) == 3)
        #expect(try kept(parts) == ["never app:com.health", "dismiss target:com.health:LogIntent(note=never-donated)"])
        #expect(try kept(parts, "u2").count == 1)
    }

    /// Retention erases h1 (and u2's h4) by age while their feedback is younger than the window: it goes
    /// with them, and the feedback naming what younger donations make stays.
    public static func retentionScrubsAsADeletionDoes(_ parts: StoreParts) throws {
        // The feedback is younger than the window's cutoff, so only scrubbing can erase it.
        let now = day.addingTimeInterval(86_400 + 90)  // h1 and h4 (minute 0) and h2 (minute 1) are older than a day
        try populate(parts, feedbackAt: now)
        try parts.privacy.setRetention(.days(1), app: health)
        let report = try parts.privacy.applyRetention(now: now, bulk: false)
        #expect(report.donationsByApp == [health: 3])
        #expect(report.feedback == 3 + 1, "the three events naming the secret (u1) and u2's")
        #expect(try kept(parts) == ["dismiss target:com.health:LogIntent(note=keep)", "never app:com.health",
                                    "dismiss target:com.health:LogIntent(note=never-donated)"])
        #expect(try kept(parts, "u2").isEmpty)
        #expect(try parts.donations.all().compactMap(\.identifier) == ["h3"])
    }
}
