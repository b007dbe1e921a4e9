import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - proactive predict

/// Ranks one user's targets at a moment with the user's live model.
struct PredictCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predict",
        abstract: "Rank what a user most likely wants at a moment, with probabilities and why.",
        discussion: """
            Reads the user's live model: the state `train` saved, caught up with every donation stored or \
            deleted since (nothing is refitted). Without a saved state, or when the intent definitions, \
            Focus schedules or --timezone differ from the ones it was fitted with, the model is fitted now, \
            saved, and a note on standard error says why. --at without an offset is the user's local time: their \
            zone (--timezone, else `proactive users timezone set`), else the offset of their latest donation; an \
            --at with an offset is that instant read on the same clock, so 2026-11-24T02:00:00Z and \
            2026-11-23T18:00:00-08:00 give the same answer. A bare day (--at 2026-11-16) names no time of day and \
            is refused, with an example (2026-11-16T07:38). The clock used is printed on standard error ("clock" \
            in --json). The moment's recent history is the user's donations at or before it. `suggest` reads the \
            same model, so both give the same probabilities.

            Examples:
              proactive predict --user u1 --at 2026-11-20T07:30 --context focus=work -k 4
              proactive predict --user u1 --at 2026-11-20T21:00:00-08:00 --json
            """
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var moment: MomentOptions

    @Option(name: .short, parsing: .unconditional, help: "How many targets to show.")
    var k: Int = 4

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func validate() throws {
        if let problem = Engine.Limits.kProblem(k) { throw ValidationError("-k \(problem), found \(k)") }
    }

    func run() throws {
        let engine = try moment.model.engine(storeOptions)
        let (date, offset, clock) = try moment.instant(engine)
        let prediction: Prediction
        do {
            prediction = try engine.predict(user: moment.user, at: date, utcOffset: offset, context: try moment.context(), k: k,
                                            model: moment.model.choice)
        } catch let error as EngineError where error.code == .noDonations {
            throw CommandFailure(description: "\(storeOptions.displayName): \(error.description)")
        }
        let when = Timestamp.format(secondsSince1970: date.timeIntervalSince1970, utcOffsetSeconds: prediction.moment.utcOffset ?? 0)
        let context = prediction.moment.context.sorted { $0.key < $1.key }
        if json {
            print(JSONWriter.string(.object([
                ("user", .string(prediction.user)), ("at", .string(when)), ("clock", .string(clock)), ("model", .string(prediction.model)),
                ("context", .object(context.map { ($0.key, .string($0.value)) })),
                ("activity", prediction.activity.map { .number($0, integer: nil) } ?? .null),
                ("note", prediction.notes.isEmpty ? .null : .string(prediction.notes.joined(separator: "; "))),
                ("suggestions", .array(prediction.suggestions.map { row in
                    .object([("target", .string(row.target.rawValue)), ("summary", .string(row.summary)),
                             ("probability", .number(row.probability, integer: nil)),
                             ("why", .array(row.why.map { .string($0) }))])
                })),
            ])))
            return
        }
        for note in prediction.notes { printError("note: \(note)") }
        let contextText = context.isEmpty ? "" : " (" + context.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + ")"
        print("Top \(prediction.suggestions.count) for \(prediction.user) at \(when)\(contextText), model \(prediction.model):")
        printError(MomentOptions.clockLine(clock))
        for (position, row) in prediction.suggestions.enumerated() {
            let why = row.why.isEmpty ? "" : " -- " + row.why.joined(separator: ", ")
            let rank = position + 1 < 10 ? " \(position + 1)" : "\(position + 1)"
            print("\(rank). \(row.summary)  \(Output.fixed(row.probability, 3))\(why)")
        }
        if let activity = prediction.activity {
            print("activity \(Output.fixed(activity, 2)): how likely user \(prediction.user) is to act at all now (1 = as at their usual times); the "
                + "probabilities above assume they act, and suggestions rank by activity x probability")
        }
    }
}
