import Foundation
import Testing
import ProactiveCore
@testable import ProactiveRanking

@Suite("People and Focus")
struct FocusPeopleTests {
    static let start = at("2026-11-02T08:00:00-08:00")

    /// `count` messages to one person in one Focus (nil: no Focus), an hour apart.
    static func messages(to id: String, _ name: String, focus: String?, count: Int, intent: String = "SendMessageIntent") -> [Donation] {
        (0..<count).map { index in
            Donation(app: "com.example.messages", intent: intent,
                     parameters: ["recipient": .entity(id: id, display: name), "account": .string("personal")],
                     date: start.addingTimeInterval(Double(index) * 3600), context: focus.map { ["focus": $0] } ?? [:])
        }
    }

    static var history: [Donation] {
        messages(to: "alice@work.example", "Alice Chen", focus: "work", count: 12)
            + messages(to: "alice@work.example", "Alice Chen", focus: "Personal", count: 2)
            + messages(to: "bob@home.example", "Bob Rivera", focus: "personal", count: 9)
            + messages(to: "bob@home.example", "Bob Rivera", focus: "work", count: 1)
            + messages(to: "carol@example.com", "Carol", focus: "work", count: 5)
            + messages(to: "carol@example.com", "Carol", focus: "personal", count: 5)
            + messages(to: "dan@example.com", "Dan", focus: "work", count: 2)
            + messages(to: "eve@example.com", "Eve", focus: nil, count: 4)
    }

    @Test func personMessagedMostlyDuringWorkIsSuggestedForWorkOnly() {
        let analysis = FocusPeopleAnalysis()
        let work = analysis.suggestions(for: "Work", in: Self.history)
        let personal = analysis.suggestions(for: "personal", in: Self.history)
        #expect(work.map(\.person) == ["alice@work.example"])
        #expect(personal.map(\.person) == ["bob@home.example"])

        // The numbers: N = 40 messages, K = 3 buckets (work, personal, no Focus), alpha = 1.
        let alice = work[0]
        #expect(alice.display == "Alice Chen")
        #expect(alice.messages == 12 && alice.messagesToPerson == 14 && alice.messagesInFocus == 20 && alice.totalMessages == 40)
        #expect(abs(alice.share - 13.0 / 17.0) < 1e-12)
        #expect(abs(alice.baseRate - 21.0 / 43.0) < 1e-12)
        #expect(abs(alice.lift - (13.0 / 17.0) / (21.0 / 43.0)) < 1e-12)
        #expect(abs(alice.pmi - log2(alice.lift)) < 1e-12)

        let all = analysis.associations(Self.history)
        let alicePersonal = all.first { $0.person == "alice@work.example" && $0.focus == "personal" }!
        #expect(!alicePersonal.isSuggested && alicePersonal.lift < 1)
        // Carol is split evenly (lift below 1.25); Dan is only messaged in Work but has 2 messages (below the support of 3).
        #expect(all.first { $0.person == "carol@example.com" && $0.focus == "work" }!.isSuggested == false)
        let dan = all.first { $0.person == "dan@example.com" }!
        #expect(dan.lift > 1 && dan.messages == 2 && !dan.isSuggested)
        let laxLift = FocusPeopleAnalysis(configuration: .init(smoothing: 1, minimumSupport: 3, minimumLift: 1))
        #expect(!laxLift.suggestions(for: "work", in: Self.history).contains { $0.person == "dan@example.com" })
        // Messages outside any Focus count in the totals, never as a Focus.
        #expect(!all.contains { $0.person == "eve@example.com" })
    }

    @Test func messagingIsRecognizedByKindOrByName() throws {
        let definitions = try IntentDefinitionSet(IntentDefinitionSet.parse("""
        {"app":"com.example.chat","intents":[
          {"name":"PostIntent","kind":"sendMessage","parameters":[{"name":"to","type":"entity","entityType":"Person"}]},
          {"name":"SendMessageDraftIntent","parameters":[{"name":"recipient","type":"entity"}]}]}
        """))
        let analysis = FocusPeopleAnalysis(definitions: definitions)
        let date = Self.start
        let post = Donation(app: "com.example.chat", intent: "PostIntent", parameters: ["to": .entity(id: "zoe", display: "Zoe")], date: date)
        #expect(analysis.recipient(of: post)?.id == "zoe")
        // A definition without kind "sendMessage" is not messaging, whatever its name.
        let draft = Donation(app: "com.example.chat", intent: "SendMessageDraftIntent", parameters: ["recipient": .string("zoe")], date: date)
        #expect(analysis.recipient(of: draft) == nil)
        // No definition: the name decides; a string recipient counts too.
        let legacy = Donation(app: "com.example.sms", intent: "INSendMessageIntent", parameters: ["recipient": .string("+1 555 0100")], date: date)
        #expect(analysis.recipient(of: legacy)?.display == "+1 555 0100")
        #expect(analysis.recipient(of: Donation(app: "com.example.sms", intent: "INSendMessageIntent", date: date)) == nil)
    }

    @Test func thresholdsAreConfigurableAndCountsWeigh() {
        var heavy = Self.messages(to: "dan@example.com", "Dan", focus: "work", count: 1)
        heavy[0].count = 3
        let history = Self.history.filter { $0.parameters["recipient"] != .entity(id: "dan@example.com", display: "Dan") } + heavy
        #expect(FocusPeopleAnalysis().suggestions(for: "work", in: history).map(\.person).contains("dan@example.com"))
        let strict = FocusPeopleAnalysis(configuration: .init(smoothing: 1, minimumSupport: 3, minimumLift: 10))
        #expect(strict.suggestions(for: "work", in: history).isEmpty)
    }
}
