import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine
import ProactiveLab

// MARK: - proactive worlds

/// Random habit worlds with an oracle: the yardstick of what the models learn (docs/WORLDS.md).
struct WorldsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worlds",
        abstract: "Ask models about random habit worlds whose answer is known (the generator is the oracle).",
        discussion: """
            A world is one person drawn at random from a grammar of habit kinds: daily, weekdays, weekends, \
            a set of weekdays, every other (or third, fourth) week, a day of the month, the last day of the \
            month, the n-th weekday of the month, a habit that follows another within minutes, one that \
            happens only in the work Focus, and habits that move, stop or start part-way; each habit has \
            its jitter and a chance to skip a day; noise apps are used a few times a day at no fixed time; \
            the person lives in a time zone with or without daylight saving time for 180 days \
            (--train-days plus 30).

            The model is trained on each world's first 150 days (--train-days; all worlds together, as \
            `train` does, so a population prior is learned; --alone: each user alone), \
            then asked 40 questions per world: 24 about the last 30 days, in time order while it learns \
            each donation as the engine does (12 at random moments, 12 just before a habit's time); 8 \
            about the 4 weeks before the training end, with the later donations already learned; and 8 \
            one to three days after the training end, of the model as trained (nothing recorded since, \
            as when a log is imported and asked about days later). For each question the oracle (the \
            generator's own law, by Monte Carlo) gives every target's chance of being the next donation \
            within the hour; after a silence, as for a day with nothing used before the moment.

            The table has one row per habit kind (the kind of the oracle's most likely target; questions \
            after a silence have only their own rows, (silent-random) and (silent-habit)): questions, \
            confident questions (the oracle's top has >= 0.5 and leads by >= 0.2), agreement (the model's \
            first target is the oracle's top, on confident questions), mean regret (the oracle's probability \
            of its top minus that of the model's first) and mean KL from the oracle's distribution.

            Two seed sets: `develop` (seeds 1000...) to work on, `report` (seeds 9000000...) only to report. \
            The same seeds always give the same worlds, questions and answers.

            Examples:
              proactive worlds
              proactive worlds --set report --worlds 60
              proactive worlds --model blend --model mfu --model markov
              proactive worlds --train-days 35 --alone   # a new user, alone
              proactive worlds --out out/worlds/develop   # also writes the worlds' files
              proactive worlds --generate-only --out out/worlds/report --set report
            """)

    @Option(help: "The seed set: develop or report.")
    var set: String = "develop"

    @Option(help: "How many worlds.")
    var worlds: Int = 40

    @Option(name: .customLong("model"), help: "A model to ask (repeatable; default: the default model).")
    var models: [String] = []

    @Option(help: ArgumentHelp("Write donations.jsonl, worlds.jsonl, questions.jsonl and predictions-MODEL.jsonl here.",
                               valueName: "dir"))
    var out: String?

    @Flag(help: "Only write the worlds' files (needs --out); ask no model.")
    var generateOnly = false

    @Flag(help: "Also train every user afresh at its last live question and compare with the live answer.")
    var trainedCheck = false

    @Option(help: ArgumentHelp("""
        Days of donations each model is trained on (29 or more); the live questions come in the 30 days \
        after them. Fewer days ask what a new user's few weeks teach (the bundled sample has 28).
        """, valueName: "days"))
    var trainDays = WorldGenerator().trainDays

    @Flag(help: """
        Train each world's user alone (no population prior: the fixed one), as a person with a store \
        of their own, such as the bundled sample.
        """)
    var alone = false

    @Option(help: ArgumentHelp("""
        Train every user afresh every this many days after the training end, as `serve --retrain-every` \
        does, the live models learning online in between (0: never). Each retraining costs one training \
        of every world; with --trained-check, the live answer then differs from a fresh training only by \
        what came since the last one (online learning, other users' rows in the population prior).
        """, valueName: "days"))
    var retrainDays = 0

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    func validate() throws {
        guard WorldGenerator.SeedSet(rawValue: set) != nil else {
            throw ValidationError("--set must be develop or report, got \"\(set)\"")
        }
        guard worlds >= 1, worlds <= 10_000 else { throw ValidationError("--worlds must be in 1...10000, got \(worlds)") }
        for name in models where ModelRegistry.builtIn.entry(named: name) == nil {
            throw ValidationError("unknown model \"\(name)\"; the models are: \(ModelRegistry.builtIn.names.joined(separator: ", "))")
        }
        if generateOnly, out == nil { throw ValidationError("--generate-only needs --out DIR") }
        guard trainDays >= 29, trainDays <= 3650 else { throw ValidationError("--train-days must be in 29...3650, got \(trainDays)") }
        guard retrainDays >= 0, retrainDays <= 30 else { throw ValidationError("--retrain-days must be in 0...30, got \(retrainDays)") }
    }

    func run() async throws {
        let seeds = WorldGenerator.SeedSet(rawValue: set)!.seeds(count: worlds)
        let started = Date()
        let worldSet = WorldSet.make(seeds: seeds, generator: WorldGenerator(days: trainDays + 30, trainDays: trainDays))
        Output.writeError("worlds: \(worldSet.worlds.count) worlds, \(worldSet.donations.count) donations, \(worldSet.questions.count) questions (\(Output.fixed(Date().timeIntervalSince(started), 1)) s)\n")
        if let out { try WorldFiles.write(worldSet, to: out) }
        if generateOnly { return }
        let entries = (models.isEmpty ? [ModelRegistry.builtIn.defaultName] : models).map { ModelRegistry.builtIn.entry(named: $0)! }
        var results: [(String, WorldsReport, WorldsBenchmark.Outcome)] = []
        for entry in entries {
            let outcome = try await WorldsBenchmark.run(worldSet, model: entry, trainedCheck: trainedCheck, alone: alone,
                                                          retrainDays: retrainDays)
            Output.writeError("worlds: \(entry.name) answered in \(Output.fixed(outcome.seconds, 1)) s\n")
            if let out { try WorldFiles.writePredictions(outcome.answers, to: "\(out)/predictions-\(entry.name).jsonl") }
            results.append((entry.name, WorldsReport(questions: worldSet.questions, answers: outcome.answers), outcome))
        }
        if json {
            print(JSONWriter.string(.array(results.map { Self.json(name: $0.0, report: $0.1, outcome: $0.2, trainDays: trainDays, alone: alone,
                                                               retrainDays: retrainDays) })))
            return
        }
        for (name, report, outcome) in results {
            let shape = (trainDays == WorldGenerator().trainDays ? "" : ", \(trainDays) days of training") + (alone ? ", each user alone" : "")
                + (retrainDays > 0 ? ", retrained every \(retrainDays) days" : "")
            print("model \(name), seed set \(set) (\(worldSet.worlds.count) worlds\(shape)), answered in \(Output.fixed(outcome.seconds, 1)) s")
            print(Self.table(report))
            if !outcome.trainedDifferences.isEmpty {
                let largest = outcome.trainedDifferences.map(\.maxDifference).max() ?? 0
                let same = outcome.trainedDifferences.filter(\.sameFirst).count
                print("live vs trained at each world's last live question: largest probability difference \(Output.fixed(largest, 3)), same first target in \(same) of \(outcome.trainedDifferences.count)")
            }
            if !outcome.samePriorDifferences.isEmpty {
                let largest = outcome.samePriorDifferences.map(\.maxDifference).max() ?? 0
                let same = outcome.samePriorDifferences.filter(\.sameFirst).count
                print("the same, trained on the live model's population prior: largest probability difference \(Output.fixed(largest, 3)), same first target in \(same) of \(outcome.samePriorDifferences.count)")
            }
            print("")
        }
    }

    static func row(_ name: String, _ score: WorldScore) -> String {
        func figure(_ value: Double) -> String { value.isNaN ? "    -" : Output.fixed(value, 3) }
        return "\(Output.padded(name, 18)) \(Output.padded(String(score.questions), 9)) \(Output.padded(String(score.confident), 9)) "
            + "\(Output.padded(figure(score.agreement), 9)) \(Output.padded(figure(score.regret), 7)) \(figure(score.kl))"
    }

    static func table(_ report: WorldsReport) -> String {
        var lines = ["\(Output.padded("kind", 18)) \(Output.padded("questions", 9)) \(Output.padded("confident", 9)) \(Output.padded("agreement", 9)) \(Output.padded("regret", 7)) KL"]
        let order = HabitKind.allCases.map(\.rawValue) + ["nothing"]
        for kind in order { if let score = report.byKind[kind] { lines.append(row(kind, score)) } }
        for (mode, score) in report.byMode.sorted(by: { $0.key < $1.key }) { lines.append(row("(\(mode))", score)) }
        lines.append(row("all", report.overall))
        return lines.joined(separator: "\n")
    }

    static func json(name: String, report: WorldsReport, outcome: WorldsBenchmark.Outcome, trainDays: Int, alone: Bool,
                     retrainDays: Int = 0) -> JSONValue {
        func score(_ s: WorldScore) -> JSONValue {
            .object([("questions", .number(Double(s.questions), integer: Int64(s.questions))),
                     ("confident", .number(Double(s.confident), integer: Int64(s.confident))),
                     ("agreement", s.agreement.isNaN ? .null : .number(s.agreement, integer: nil)),
                     ("regret", .number(s.regret, integer: nil)), ("kl", .number(s.kl, integer: nil))])
        }
        // Per world checked: its last live question (the id of questions.jsonl), the largest difference, the same first.
        func difference(_ d: (question: Int, maxDifference: Double, sameFirst: Bool)) -> JSONValue {
            .object([("question", .number(Double(d.question), integer: Int64(d.question))),
                     ("max_difference", .number(d.maxDifference, integer: nil)), ("same_first", .bool(d.sameFirst))])
        }
        let differences = outcome.trainedDifferences.map(\.maxDifference)
        let samePrior = outcome.samePriorDifferences.map(\.maxDifference)
        return .object([
            ("model", .string(name)), ("train_days", .number(Double(trainDays), integer: Int64(trainDays))), ("alone", .bool(alone)),
            ("retrain_days", .number(Double(retrainDays), integer: Int64(retrainDays))),
            ("seconds", .number(outcome.seconds, integer: nil)), ("overall", score(report.overall)),
            ("kinds", .object(report.byKind.sorted { $0.key < $1.key }.map { ($0.key, score($0.value)) })),
            ("modes", .object(report.byMode.sorted { $0.key < $1.key }.map { ($0.key, score($0.value)) })),
            ("trained_max_difference", differences.isEmpty ? .null : .number(differences.max()!, integer: nil)),
            ("same_prior_trained_max_difference", samePrior.isEmpty ? .null : .number(samePrior.max()!, integer: nil)),
            ("trained_differences", .array(outcome.trainedDifferences.map(difference))),
            ("same_prior_trained_differences", .array(outcome.samePriorDifferences.map(difference))),
        ])
    }
}

/// The files of a world set (docs/WORLDS.md): donations.jsonl, worlds.jsonl, questions.jsonl, and a
/// model's predictions-NAME.jsonl.
enum WorldFiles {
    static func write(_ set: WorldSet, to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var donations = ""
        for donation in set.donations.sorted(by: { ($0.user, $0.date) < ($1.user, $1.date) }) {
            donations += DonationLineCodec.encode(donation) + "\n"
        }
        try donations.write(toFile: "\(directory)/donations.jsonl", atomically: true, encoding: .utf8)
        var worlds = ""
        for world in set.worlds {
            let habits: [JSONValue] = world.habits.map { habit in
                var members: [(String, JSONValue)] = [("target", .string(habit.target)), ("kind", .string(habit.kind.rawValue)),
                                                      ("days", .string(habit.rule.text)), ("minute", .number(habit.minute, integer: nil)),
                                                      ("jitter", .number(habit.jitter, integer: nil)), ("skip", .number(habit.skip, integer: nil))]
                if let leader = habit.leader { members.append(("follows", .string(world.habits[leader].target))) }
                if habit.needsFocus { members.append(("focus", .string("work"))) }
                if let moved = habit.movedOn { members.append(("movedOnDay", .number(Double(moved), integer: Int64(moved)))) }
                if habit.movedOn != nil { members.append(("movedMinute", .number(habit.movedMinute, integer: nil))) }
                if habit.from > 0 { members.append(("fromDay", .number(Double(habit.from), integer: Int64(habit.from)))) }
                if habit.until < .max { members.append(("untilDay", .number(Double(habit.until), integer: Int64(habit.until)))) }
                return .object(members)
            }
            let noise: [JSONValue] = world.noise.map { .object([("target", .string($0.target)), ("perDay", .number($0.perDay, integer: nil))]) }
            let line: JSONValue = .object([
                ("user", .string(world.user)), ("timezone", .string(world.timeZone.identifier)),
                ("start", .string(iso(world.start, world.timeZone))), ("trainEnd", .string(iso(world.trainEnd, world.timeZone))),
                ("end", .string(iso(world.end, world.timeZone))), ("habits", .array(habits)), ("noise", .array(noise)),
            ])
            worlds += JSONWriter.string(line) + "\n"
        }
        try worlds.write(toFile: "\(directory)/worlds.jsonl", atomically: true, encoding: .utf8)
        var questions = ""
        for question in set.questions {
            let zone = set.worlds[question.world].timeZone
            let next = question.oracle.next.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            let line: JSONValue = .object([
                ("id", .number(Double(question.id), integer: Int64(question.id))), ("user", .string(question.user)),
                ("at", .string(iso(question.date, zone))),
                ("context", .object(question.context.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
                ("mode", .string(question.mode.rawValue)), ("moment", .string(question.moment.rawValue)),
                ("kind", .string(question.kind)), ("confident", .bool(question.oracle.confident)),
                ("oracle", .object([("nothing", .number(question.oracle.nothing, integer: nil)),
                                    ("next", .object(next.map { ($0.key, .number($0.value, integer: nil)) }))])),
            ])
            questions += JSONWriter.string(line) + "\n"
        }
        try questions.write(toFile: "\(directory)/questions.jsonl", atomically: true, encoding: .utf8)
    }

    static func writePredictions(_ answers: [WorldAnswer], to path: String) throws {
        var text = ""
        for answer in answers.sorted(by: { $0.id < $1.id }) {
            let line: JSONValue = .object([("id", .number(Double(answer.id), integer: Int64(answer.id))),
                                           ("scores", .object(answer.scores.map { ($0.target, .number($0.probability, integer: nil)) }))])
            text += JSONWriter.string(line) + "\n"
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// ISO 8601 with the zone's offset at that instant ("2026-03-08T07:30:00-05:00").
    static func iso(_ date: Date, _ zone: TimeZone) -> String {
        let offset = zone.secondsFromGMT(for: date)
        let local = Int(date.timeIntervalSince1970.rounded()) + offset
        let day = Int((Double(local) / 86_400).rounded(.down))
        let calendar = CalendarDay(day: day)
        let seconds = local - day * 86_400
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let sign = offset < 0 ? "-" : "+"
        let magnitude = abs(offset) / 60
        return "\(calendar.year)-\(two(calendar.month))-\(two(calendar.dayOfMonth))T\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))"
            + "\(sign)\(two(magnitude / 60)):\(two(magnitude % 60))"
    }
}
