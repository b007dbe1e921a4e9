import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine

// MARK: - The Smart Stack at a moment

/// The Smart Stack at a moment.
/// The handler reads the question, asks `RankingSession.stackMoment` and encodes its answer.
struct StackController {
    let service: ProactiveService

    var routes: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .post("stack", use: stack)
    }

    /// `POST /v1/stack`: which widget a stack shows at a moment and why
    /// (owner only, as `stack`). Body (`StackQuestion`): `{"user": "me", "at": DATE,
    /// "widgets": ["weather", "reminders"], "context": {...},
    /// "smartRotate": true, "widgetSuggestions": true, "developer": false}`.
    /// Widgets are named as `proactive stack --widgets` names them (`app/kind`
    /// when a kind alone names widgets of several apps). The answer gives the top
    /// widget's and each candidate's app. The decision is a fresh stack's (no
    /// rotation carried from earlier calls).
    @Sendable func stack(_ request: Request, _ context: ServiceRequestContext) async throws -> StackAnswer {
        try context.requireOwner(to: "ask for the Smart Stack (it reads every app's donations)")
        let asked = try await request.decode(as: StackQuestion.self, context: context)
        let (question, names, settings) = (asked.question, asked.widgets, asked.settings)
        let engine = service.engine(context)
        let session = try await service.runtime.session(user: question.user, as: engine)
        let when = try question.moment(engine, live: session.live)
        let answer: StackMoment
        do {
            answer = try session.stackMoment(widgets: names, at: when.date, utcOffset: when.utcOffset, context: question.context, settings: settings)
        } catch let error as EngineError where error.code == .invalidRequest {
            let hint = "\(error)".hasPrefix("no widget named") ? " (GET /v1/definitions lists the stored widget kinds)" : ""
            throw APIError.badRequest("\(error)\(hint)", field: "widgets")
        }
        return StackAnswer(
            user: answer.user, at: Instant(date: answer.date, utcOffset: answer.utcOffset), top: answer.top, app: answer.app,
            reason: answer.reason, score: answer.score, why: answer.why, inserted: answer.inserted, skipped: answer.skipped,
            candidates: answer.candidates.map { candidate in
                StackAnswer.Candidate(widget: candidate.widget, app: candidate.app, score: candidate.score, inStack: candidate.inStack,
                                      why: candidate.why)
            })
    }
}
