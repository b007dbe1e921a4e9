import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine

// MARK: - Questions about what a user does next: predictions and suggestions

/// Questions about what a user does next: predictions and suggestions.
/// Each handler reads the request, makes one Runtime or Engine call and encodes its answer.
struct SuggestionsController {
    let service: ProactiveService

    var routes: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .post("predict", use: predict)
            .post("suggestions", use: suggest)
    }

    /// `{"user": "u1", "at": "2026-11-20T07:30:00-08:00", "context": {"focus": "work"}, "k": 4}`; every field optional (`Question`).
    /// Answers in the shape of `proactive predict --json`.
    @Sendable func predict(_ request: Request, _ context: ServiceRequestContext) async throws -> PredictAnswer {
        try context.requireOwner(to: "ask for predictions (they read every app's donations)")
        let question = try await request.decode(as: Question.self, context: context)
        let live = try await service.models.live(user: question.user, waiting: false)
        let engine = service.engine(context)
        let when = try question.moment(engine, live: live)
        let prediction = try engine.predict(live, at: when.date, utcOffset: when.utcOffset, context: question.context, k: question.k)
        return PredictAnswer(
            user: prediction.user, at: Instant(date: when.date, utcOffset: prediction.moment.utcOffset ?? 0), clock: when.clock,
            model: prediction.model,
            context: .object(prediction.moment.context.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }),
            activity: prediction.activity, note: prediction.notes.isEmpty ? nil : prediction.notes.joined(separator: "; "),
            suggestions: prediction.suggestions.map { row in
                PredictAnswer.Row(target: row.target.rawValue, summary: row.summary, probability: row.probability, why: row.why)
            })
    }

    /// The same question as predict, plus `"developer": true` to lift the floors (`SuggestionQuestion`).
    @Sendable func suggest(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        try context.requireOwner(to: "ask for suggestions (they read every app's donations)")
        let asked = try await SuggestionQuestion.read(request, context: context)
        let question = asked.question
        let engine = service.engine(context)
        let (session, live, version, stamp) = try await service.runtime.question(user: question.user, as: engine)
        let when = try question.moment(engine, live: live)
        // The same question about the same model and inputs: the same answer (`SuggestionAnswers`).
        let key = SuggestionAnswers.Key(model: version, inputs: stamp, milliseconds: when.date.millisecondsSince1970,
                                        utcOffset: when.utcOffset, context: question.context, k: question.k, developer: asked.developer)
        if let body = service.answers.answer(user: question.user, key: key) { return Response.json(body: body) }
        let result = try session.suggest(at: when.date, utcOffset: when.utcOffset, context: question.context, k: question.k,
                                         developerMode: asked.developer)
        let body = Response.jsonBody(SuggestionsAnswer(
            user: question.user, at: Instant(date: when.date, utcOffset: result.moment.utcOffset ?? 0), model: result.model,
            suggestions: result.suggestions.map(\.json)).json)
        service.answers.keep(user: question.user, key: key, body: body)
        return Response.json(body: body)
    }
}
