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
}
