import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine
import ProactiveModels
import ProactiveRanking
import ProactiveStore

// MARK: - The Smart Stack at a moment

extension ProactiveService {
    /// `POST /v1/stack`: which widget a stack shows at a moment and why
    /// (owner only, as `stack`). Body (`StackQuestion`): `{"user": "me", "at": DATE,
    /// "widgets": ["weather", "reminders"], "context": {...},
    /// "smartRotate": true, "widgetSuggestions": true, "developer": false}`.
    /// Widgets are named as `proactive stack --widgets` names them (`app/kind`
    /// when a kind alone names widgets of several apps). The answer gives the top
    /// widget's and each candidate's app. The decision is a fresh stack's (no
    /// rotation carried from earlier calls).
    func stack(_ request: Request, _ context: ServiceRequestContext) async throws -> StackAnswer {
        try context.requireOwner(to: "ask for the Smart Stack (it reads every app's donations)")
        let asked = try await request.decode(as: StackQuestion.self, context: context)
        let (question, names, settings) = (asked.question, asked.widgets, asked.settings)
        let live = try await models.live(user: question.user, waiting: false)
        let engine = engine(context)
        let session = engine.rankingSession(live, inputs: try inputs.inputs(user: live.user, engine: engine))
        let when = try question.moment(engine, live: live)
        let moment = try engine.moment(for: live, at: when.date, utcOffset: when.utcOffset, context: question.context)
        let offset = moment.utcOffset ?? 0
        let ranker = session.ranker(dayStart: session.dayStart(containing: when.date, utcOffset: offset), utcOffset: offset,
                                    context: question.context)
        let widgets: [WidgetID], skipped: [String]
        do { (widgets, skipped) = try session.stackWidgets(names, in: session.widgetCatalogue(ranker), ranker: ranker) } catch {
            let hint = "\(error)".hasPrefix("no widget named") ? " (GET /v1/definitions lists the stored widget kinds)" : ""
            throw APIError.badRequest("\(error)\(hint)", field: "widgets")
        }
        var state = StackState()
        let decision = SmartStackEngine(ranker: ranker).step(SmartStack(widgets: widgets, settings: settings),
                                                             distribution: ActiveNowModel(live.model).distribution(at: moment),
                                                             moment: moment, state: &state)
        // Times in reasons on the user's clock at each (a zone's offset changes at DST), else the moment's offset.
        let why = { (signals: RelevanceSignals) in signals.reasons(ranker.configuration, utcOffsetAt: { session.offset(at: $0, fallback: offset) }) }
        return StackAnswer(
            user: question.user, at: Instant(date: when.date, utcOffset: offset), top: decision.top.displayName, app: decision.top.app,
            reason: decision.reason.rawValue, score: decision.topScore, why: why(decision.topSignals),
            inserted: decision.inserted.map(\.widget.displayName), skipped: skipped,
            candidates: decision.candidates.map { candidate in
                StackAnswer.Candidate(widget: candidate.widget.displayName, app: candidate.widget.app, score: candidate.score,
                                      inStack: candidate.inStack, why: why(candidate.signals))
            })
    }
}
