import Foundation
import Testing
import ProactiveCore
import ProactiveModels
@testable import ProactiveRanking

@Suite("Focus filters in suggestions and the Smart Stack")
struct FocusRankingTests {
    static let mail = "com.example.mail"
    static func mailTarget(account: String, to: String) -> Target {
        let parameters: [String: ParameterValue] = ["account": .entity(id: account, display: account.capitalized), "to": .string(to)]
        return Target(key: TargetKey(app: mail, intent: "SendMailIntent", parameters: parameters), app: mail, intent: "SendMailIntent",
                      parameters: parameters, summary: "Mail \(to) from \(account)")
    }
    static let workMail = mailTarget(account: "work", to: "team")
    static let personalMail = mailTarget(account: "personal", to: "mom")

    /// Work mail is the model's favourite at every hour; personal mail second; then weather and "open mail".
    static func model() -> HourlyModel {
        HourlyModel([
            workMail.key: HourlyModel.profile(base: 0.5, peak: 0.5, hours: 0..<24),
            personalMail.key: HourlyModel.profile(base: 0.25, peak: 0.25, hours: 0..<24),
            Talk.weatherTarget.key: HourlyModel.profile(base: 0.15, peak: 0.15, hours: 0..<24),
            Talk.mailTarget.key: HourlyModel.profile(base: 0.1, peak: 0.1, hours: 0..<24),
        ])
    }

    static func engine() throws -> FocusFilterEngine {
        var engine = FocusFilterEngine()
        engine.declare(try FocusFilter.parse(mailFilterJSON))
        try engine.configure(app: mail, focus: "Personal", set: ["account": personalAccount])
        return engine
    }

    @Test func personalFocusDropsWorkAccountSuggestions() throws {
        let targets = Talk.targets.merging([Self.workMail.key: Self.workMail, Self.personalMail.key: Self.personalMail]) { a, _ in a }
        var ranker = SuggestionRanker(ranker: Ranker(targets: targets, focusGate: try Self.engine()))
        // The Focus comes from the timeline: Personal set by hand in the morning.
        var timeline = FocusTimeline()
        timeline.set("Personal", at: Day.at(7))
        let moment = timeline.enrich(Day.moment(10))
        #expect(moment.context["focus"] == "personal")

        let model = Self.model()
        let inPersonal = ranker.suggest(model.scores(at: moment), moment: moment, k: 4).map(\.target)
        #expect(!inPersonal.contains(Self.workMail.key))
        #expect(inPersonal.first == Self.personalMail.key)
        #expect(inPersonal.contains(Talk.mailTarget.key))                 // "Open Mail" is not about an account

        var unfiltered = SuggestionRanker(ranker: Ranker(targets: targets, focusGate: try Self.engine()))
        let noFocus = Day.moment(10)
        #expect(unfiltered.suggest(model.scores(at: noFocus), moment: noFocus, k: 4).first?.target == Self.workMail.key)
    }

    @Test func personalFocusDoesNotChooseAWorkAccountWidget() throws {
        let workInbox = WidgetID(app: Self.mail, kind: "inbox", configuration: WidgetConfiguration(intent: "SendMailIntent", parameters: Self.workMail.parameters))
        let personalInbox = WidgetID(app: Self.mail, kind: "inbox", configuration: WidgetConfiguration(intent: "SendMailIntent", parameters: Self.personalMail.parameters))
        let engine = try Self.engine()
        let moment = Day.moment(10, context: ["focus": "personal"])
        #expect(!engine.allows(FocusCandidate(app: Self.mail, widget: workInbox), focus: "personal", context: moment.context))
        #expect(engine.allows(FocusCandidate(app: Self.mail, widget: personalInbox), focus: "personal", context: moment.context))
        #expect(engine.allows(FocusCandidate(app: Self.mail, widget: WidgetID(app: Self.mail, kind: "unread")), focus: "personal", context: [:]))

        let ranker = Ranker(targets: [Self.workMail.key: Self.workMail, Self.personalMail.key: Self.personalMail], focusGate: engine)
        let stack = SmartStack(widgets: [workInbox, personalInbox, Talk.reminders])
        let scored = SmartStackEngine(ranker: ranker).score(stack, scores: Self.model().scores(at: moment), moment: moment, configuration: .standard)
        let work = try #require(scored.first { $0.widget == workInbox })
        #expect(work.signals.block == .focus("personal"))
        #expect(work.score == 0)
        #expect(scored.first?.widget == personalInbox)
    }

    @Test func targetKeysReadBackTheirParameters() {
        let key = TargetKey(app: "a:b", intent: "I(x)", parameters: ["acc=ount": .string("a,b(c)%"), "to": .entity(id: "é", display: "E")])
        #expect(TargetKeyParameters.values(of: key) == ["acc=ount": "a,b(c)%", "to": "é"])
        #expect(TargetKeyParameters.values(of: TargetKey(app: "a", intent: "open", parameters: [:])).isEmpty)
    }

    // MARK: Criteria from the targets' donations

    /// Messages whose combination keeps only the recipient: the account is not in the key.
    static func messages() throws -> (donations: [Donation], resolver: TargetResolver) {
        let definitions = try IntentDefinitionSet(IntentDefinitionSet.parse("""
        {"app":"com.example.messages","intents":[{"name":"SendMessageIntent","kind":"sendMessage",
          "parameters":[{"name":"recipient","type":"entity","entityType":"Person"},{"name":"account","type":"enum","cases":["personal","work"]}],
          "combinations":[{"parameters":["recipient"],"summary":"Message ${recipient}"}]}]}
        """))
        func message(_ id: String, _ account: String?, hour: Int) -> Donation {
            var parameters: [String: ParameterValue] = ["recipient": .entity(id: id, display: id.capitalized)]
            if let account { parameters["account"] = .string(account) }
            return Donation(app: "com.example.messages", intent: "SendMessageIntent", parameters: parameters, date: Day.at(hour))
        }
        let donations = [message("alice", "work", hour: 9), message("alice", "work", hour: 10), message("bob", "personal", hour: 19),
                         message("carol", "work", hour: 11), message("carol", "personal", hour: 20),
                         message("dan", "work", hour: 12), message("dan", nil, hour: 13)]
        return (donations, TargetResolver(definitions: definitions))
    }

    @Test func targetsCarryTheCriteriaAllTheirDonationsAgreeOn() throws {
        let (donations, resolver) = try Self.messages()
        let criteria = TargetCriteria(donations: donations, resolver: resolver)
        func key(_ id: String) -> TargetKey {
            resolver.target(app: "com.example.messages", intent: "SendMessageIntent", parameters: ["recipient": .entity(id: id, display: nil)]).key
        }
        #expect(criteria.criteria(for: key("alice")) == ["recipient": "alice", "account": "work"])
        #expect(criteria.criteria(for: key("bob")) == ["recipient": "bob", "account": "personal"])
        #expect(criteria.criteria(for: key("carol")) == ["recipient": "carol"])      // mixed accounts: unknown
        #expect(criteria.criteria(for: key("dan")) == ["recipient": "dan"])          // one donation has no account

        var engine = FocusFilterEngine()
        engine.declare(FocusFilter(app: "com.example.messages", title: "Account", parameters: [
            FocusFilterParameter(name: "account", type: .entity(type: "Account", options: []), matches: "account"),
        ]))
        try engine.configure(app: "com.example.messages", focus: "personal", set: ["account": .entity(id: "personal", display: nil)])
        let gate = FocusCriteriaGate(filters: engine, criteria: criteria)
        func allowed(_ id: String) -> Bool {
            gate.allows(FocusCandidate(app: "com.example.messages", target: key(id)), focus: "personal", context: [:])
        }
        #expect(!allowed("alice"))
        #expect(allowed("bob") && allowed("carol") && allowed("dan"))
        // The key alone does not say which account Alice's messages use.
        #expect(engine.allows(FocusCandidate(app: "com.example.messages", target: key("alice")), focus: "personal", context: [:]))
    }
}
