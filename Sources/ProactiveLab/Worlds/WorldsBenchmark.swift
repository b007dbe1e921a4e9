import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - Questions about a world

/// One question about a world: a moment, the donations a model may use, and the oracle's answer.
///
/// Modes: `live`, asked while the model learns each donation before the moment; `past`, about a moment
/// before the training end, with the later donations already learned; `silent`, asked one to three days
/// after the training end of a model that learned nothing since (the device recorded nothing meanwhile,
/// as when a log is imported and asked about days later), with the oracle's answer drawn as for a day
/// with no use before the moment.
public struct WorldQuestion: Sendable {
    public enum Mode: String, Sendable { case live, past, silent }
    public enum MomentKind: String, Sendable { case random, habit }
    public var id: Int
    public var world: Int
    public var user: String
    public var day: Int
    public var minute: Double
    public var date: Date
    public var utcOffset: Int
    public var context: [String: String]
    public var mode: Mode
    public var moment: MomentKind
    /// The habit kind of the oracle's most likely target ("noise" for a noise app, "nothing" when no
    /// donation can come within the hour).
    public var kind: String
    public var oracle: WorldOracle.Answer
}

/// A seed set of worlds with their donations and questions (what `proactive worlds generate` writes).
public struct WorldSet: Sendable {
    public var worlds: [HabitWorld]
    public var donations: [Donation]
    public var questions: [WorldQuestion]

    /// Questions per world: live at random moments, live at habit times, past at random moments, past at habit
    /// times, after a silence at random moments and at habit times.
    public static let questionCounts = (liveRandom: 12, liveHabit: 12, pastRandom: 4, pastHabit: 4, silentRandom: 4, silentHabit: 4)

    /// The days a silent question may fall on: one to three whole days after the training end's day.
    static func silentDays(_ world: HabitWorld) -> Range<Int> {
        min(world.trainDays + 1, world.days - 1) ..< min(world.trainDays + 4, world.days)
    }

    /// Generates the worlds of `seeds`, their donations and their questions (with the oracle's answers).
    public static func make(seeds: [UInt64], generator: WorldGenerator = WorldGenerator(), samples: Int = 4000) -> WorldSet {
        var worlds: [HabitWorld] = []
        var donations: [Donation] = []
        var questions: [WorldQuestion] = []
        for seed in seeds {
            let world = generator.world(seed: seed)
            let uses = world.uses()
            let oracle = WorldOracle(world: world, uses: uses)
            let index = worlds.count
            worlds.append(world)
            donations += world.donations()
            var random = SeededGenerator.derived(seed: seed, 0x0935_7105)
            let counts = questionCounts
            let plan: [(WorldQuestion.Mode, WorldQuestion.MomentKind, Int)] = [
                (.past, .random, counts.pastRandom), (.past, .habit, counts.pastHabit),
                (.live, .random, counts.liveRandom), (.live, .habit, counts.liveHabit),
                (.silent, .random, counts.silentRandom), (.silent, .habit, counts.silentHabit),
            ]
            for (mode, kind, count) in plan {
                let days = switch mode {
                case .live: world.trainDays ..< world.days
                case .past: world.trainDays - 28 ..< world.trainDays
                case .silent: silentDays(world)
                }
                for _ in 0 ..< count {
                    let (day, minute) = kind == .random
                        ? (random.integer(in: days.lowerBound ... days.upperBound - 1), (360 + random.unit() * 1020).rounded())
                        : habitMoment(world, uses: uses, days: days, &random)
                    let answer = oracle.answer(day: day, minute: minute, samples: samples, seed: seed, seenToday: mode != .silent)
                    let date = world.instant(day: day, minute: minute)
                    questions.append(WorldQuestion(
                        id: questions.count, world: index, user: world.user, day: day, minute: minute, date: date,
                        utcOffset: world.timeZone.secondsFromGMT(for: date), context: world.context(day: day, minute: minute),
                        mode: mode, moment: kind, kind: kindOfTop(answer, world), oracle: answer))
                }
            }
        }
        return WorldSet(worlds: worlds, donations: donations, questions: questions)
    }

    /// A moment shortly before a habit's time: a habit drawn at random, a day of `days` on which it is
    /// scheduled (seven times in ten; else any day, so the days it does not happen are asked too), and a
    /// minute 3 to 20 minutes before its mean time (a follower: a minute after its leader's use that day).
    static func habitMoment(_ world: HabitWorld, uses: [HabitWorld.Use], days: Range<Int>, _ random: inout SeededGenerator) -> (Int, Double) {
        let h = random.integer(in: 0 ... world.habits.count - 1)
        let habit = world.habits[h]
        let wantScheduled = random.chance(0.7)
        var day = random.integer(in: days.lowerBound ... days.upperBound - 1)
        if wantScheduled {
            for _ in 0 ..< 60 {
                let candidate = random.integer(in: days.lowerBound ... days.upperBound - 1)
                if habit.scheduled(onDay: candidate, world.calendar(candidate)) {
                    day = candidate
                    break
                }
            }
        }
        let before = 3 + random.unit() * 17
        if let leader = habit.leader {
            let leaderTarget = world.habits[leader].target
            if let use = uses.first(where: { $0.day == day && $0.target == leaderTarget }) { return (day, (use.minute + 1).rounded(.up)) }
            return (day, (world.habits[leader].meanMinute(onDay: day) - before).rounded())
        }
        return (day, max(0, (habit.meanMinute(onDay: day) - before).rounded()))
    }

    static func kindOfTop(_ answer: WorldOracle.Answer, _ world: HabitWorld) -> String {
        guard let top = answer.top else { return "nothing" }
        if let habit = world.habits.first(where: { $0.target == top.target }) { return habit.kind.rawValue }
        return HabitKind.noise.rawValue
    }
}

// MARK: - Scoring answers against the oracle

/// A model's answer to one question: a probability per target key ("app/intent"), the first the highest.
public struct WorldAnswer: Sendable {
    public var id: Int
    public var scores: [(target: String, probability: Double)]
    public init(id: Int, scores: [(target: String, probability: Double)]) {
        self.id = id
        self.scores = scores
    }
}

/// The benchmark's figures for a group of questions (docs/WORLDS.md): agreement with the oracle where it
/// is confident, mean regret, mean KL from the oracle.
public struct WorldScore: Sendable, Codable, Equatable {
    public var questions = 0
    public var confident = 0
    public var agreed = 0
    public var regretSum = 0.0
    public var klSum = 0.0
    public var agreement: Double { confident == 0 ? .nan : Double(agreed) / Double(confident) }
    public var regret: Double { questions == 0 ? .nan : regretSum / Double(questions) }
    public var kl: Double { questions == 0 ? .nan : klSum / Double(questions) }

    /// The model probability floor of the KL (after renormalising over both supports).
    public static let floor = 1e-4

    mutating func add(_ question: WorldQuestion, _ answer: WorldAnswer) {
        let oracle = question.oracle
        guard !oracle.next.isEmpty else { return }
        questions += 1
        let first = answer.scores.first?.target
        let top = oracle.top!
        if oracle.confident {
            confident += 1
            if first == top.target { agreed += 1 }
        }
        regretSum += top.probability - (first.flatMap { oracle.next[$0] } ?? 0)
        var model: [String: Double] = [:]
        for (target, p) in answer.scores { model[target] = p }
        let support = Set(model.keys).union(oracle.next.keys)
        var total = 0.0
        for target in support { total += max(model[target] ?? 0, Self.floor) }
        for (target, p) in oracle.next where p > 0 {
            klSum += p * Foundation.log(p / (max(model[target] ?? 0, Self.floor) / total))
        }
    }
}

/// Scores answers by habit kind and overall.
public struct WorldsReport: Sendable {
    public var byKind: [String: WorldScore]
    public var overall: WorldScore
    public var byMode: [String: WorldScore]

    public init(questions: [WorldQuestion], answers: [WorldAnswer]) {
        var byKind: [String: WorldScore] = [:]
        var byMode: [String: WorldScore] = [:]
        var overall = WorldScore()
        let answerOf = Dictionary(answers.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for question in questions {
            guard let answer = answerOf[question.id] else { continue }
            byMode["\(question.mode.rawValue)-\(question.moment.rawValue)", default: WorldScore()].add(question, answer)
            // Questions after a silence have their own rows only: the kinds and the total stay those of a
            // model that saw the donations before the moment.
            guard question.mode != .silent else { continue }
            byKind[question.kind, default: WorldScore()].add(question, answer)
            overall.add(question, answer)
        }
        self.byKind = byKind.filter { $0.value.questions > 0 }
        self.byMode = byMode
        self.overall = overall
    }
}

// MARK: - Asking the engine's models

/// Runs a model of the registry on a world set, as the engine lives: each world's user is trained on
/// the donations before the world's training end (all users together, so models with a population prior
/// get one); questions about the past are asked of that model with later donations already learned;
/// live questions are asked in time order while the model learns each later donation online, as the
/// engine learns each donation. `trainedCheck` also trains every user afresh on the donations before
/// that user's last live question and asks it again: the live and the trained answer must agree.
/// With `retrainDays`, the live models are trained afresh every that many days after the training end
/// (all users together, as the service's `--retrain-every` does), then learn online from there.
public enum WorldsBenchmark {
    public struct Outcome: Sendable {
        public var answers: [WorldAnswer]
        /// Per world checked: the largest difference of a target's probability between the live and the
        /// freshly trained model at the world's last live question, and whether their first targets agree.
        public var trainedDifferences: [(question: Int, maxDifference: Double, sameFirst: Bool)]
        /// The same, with the user trained afresh on the live model's own population prior (the other
        /// users' evidence as it was): the difference the user's own donations leave, which must be none.
        public var samePriorDifferences: [(question: Int, maxDifference: Double, sameFirst: Bool)]
        public var seconds: Double
    }

    /// - Parameters:
    ///   - alone: fit each world's user on its own donations only (no population prior, for a model that
    ///     has one), as a person with a store of their own.
    ///   - retrainDays: train every user afresh this many days after the training end, and again after as
    ///     many more, through the live questions (0: never; each costs one training of every user).
    public static func run(_ set: WorldSet, model entry: ModelEntry, workers: Int = WorkerPool.defaultWorkers,
                           trainedCheck: Bool = false, alone: Bool = false, retrainDays: Int = 0,
                           resolver: TargetResolver = TargetResolver()) async throws -> Outcome {
        let start = Date()
        var byUser: [String: [Donation]] = [:]
        for donation in set.donations { byUser[donation.user, default: []].append(donation) }
        var names: [TargetKey: String] = [:]
        for donation in set.donations { names[resolver.target(for: donation).key] = "\(donation.app)/\(donation.intent)" }
        let keyNames = names
        let worlds = set.worlds
        let all = worlds.map { (byUser[$0.user] ?? []).sorted { $0.date < $1.date } }
        let cutoffs = worlds.map(\.trainEnd)
        let fitted = try fits(entry, histories: all, cutoffs: cutoffs, resolver: resolver, workers: workers, alone: alone)
        var grouped = [[WorldQuestion]](repeating: [], count: worlds.count)
        for question in set.questions { grouped[question.world].append(question) }
        let questionsOf = grouped
        // The trainings every `retrainDays` after each world's training end, up to its last live question.
        var retrainings: [(cutoffs: [Date], fits: Fits)] = []
        if retrainDays > 0 {
            let lastLive = (0 ..< worlds.count).map { w in questionsOf[w].filter { $0.mode == .live }.map(\.date).max() ?? cutoffs[w] }
            var k = 1
            while true {
                let cut = cutoffs.map { $0.addingTimeInterval(Double(k * retrainDays) * 86_400) }
                guard zip(cut, lastLive).contains(where: { $0 < $1 }) else { break }
                retrainings.append((cut, try fits(entry, histories: all, cutoffs: cut, resolver: resolver, workers: workers, alone: alone)))
                k += 1
            }
        }
        let retrained = retrainings
        let jobs = Array(0 ..< worlds.count)
        let perWorld = await WorkerPool.map(jobs, workers: workers) { w -> (answers: [WorldAnswer], model: (any FittedModel)?) in
            guard var model = try? fitted.fit(w) else { return ([], nil) }
            let history = all[w]
            let events = history.map { Self.event($0, resolver) }
            var answers: [WorldAnswer] = []
            let questions = questionsOf[w].sorted { $0.date < $1.date }
            for question in questions where question.mode == .past {
                answers.append(ask(model, question, events: events, names: keyNames))
            }
            let beforeTrainEnd = Array(events.prefix { $0.date < worlds[w].trainEnd })
            for question in questions where question.mode == .silent {
                answers.append(ask(model, question, events: beforeTrainEnd, names: keyNames))
            }
            var learned = events.firstIndex { $0.date >= worlds[w].trainEnd } ?? events.count
            var nextRetraining = 0
            for question in questions where question.mode == .live {
                // Trained afresh at the latest retraining before the question, then learning online from there.
                var latest: Int?
                while nextRetraining < retrained.count, retrained[nextRetraining].cutoffs[w] <= question.date {
                    latest = nextRetraining
                    nextRetraining += 1
                }
                if let latest, let fresh = try? retrained[latest].fits.fit(w) {
                    model = fresh
                    let cut = retrained[latest].cutoffs[w]
                    learned = events.firstIndex { $0.date >= cut } ?? events.count
                }
                var batch: [Event] = []
                while learned < events.count, events[learned].date < question.date {
                    batch.append(events[learned])
                    learned += 1
                }
                if !batch.isEmpty { model.update(with: batch) }
                answers.append(ask(model, question, events: events, names: keyNames))
            }
            return (answers, trainedCheck ? model : nil)
        }
        var differences: [(Int, Double, Bool)] = []
        var samePrior: [(Int, Double, Bool)] = []
        let answers = perWorld.flatMap(\.answers)
        if trainedCheck {
            let last = (0 ..< worlds.count).map { w in questionsOf[w].filter { $0.mode == .live }.max { $0.date < $1.date } }
            let cut = zip(last, cutoffs).map { $0?.date ?? $1 }
            let retrained = try fits(entry, histories: all, cutoffs: cut, resolver: resolver, workers: workers, alone: alone)
            let answerOf = Dictionary(answers.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            let liveModels = perWorld.map(\.model)
            @Sendable func compare(_ live: WorldAnswer, _ fresh: WorldAnswer) -> (Int, Double, Bool) {
                var liveP: [String: Double] = [:]
                for (target, p) in live.scores { liveP[target] = p }
                var freshP: [String: Double] = [:]
                for (target, p) in fresh.scores { freshP[target] = p }
                let difference = Set(liveP.keys).union(freshP.keys).map { abs((liveP[$0] ?? 0) - (freshP[$0] ?? 0)) }.max() ?? 0
                return (live.id, difference, live.scores.first?.target == fresh.scores.first?.target)
            }
            let rechecked = await WorkerPool.map(jobs, workers: workers) { w -> (all: (Int, Double, Bool)?, samePrior: (Int, Double, Bool)?) in
                guard let question = last[w], let model = try? retrained.fit(w),
                      let live = answerOf[question.id] else { return (nil, nil) }
                let events = all[w].map { Self.event($0, resolver) }
                let fresh = compare(live, ask(model, question, events: events, names: keyNames))
                guard let blend = liveModels[w] as? BlendModel,
                      let own = try? blend.retrained(on: TrainingSet(donations: all[w].filter { $0.date < question.date }, resolver: resolver))
                else { return (fresh, nil) }
                let result = compare(live, ask(own, question, events: events, names: keyNames))
                return (fresh, result)
            }
            differences = rechecked.compactMap(\.all)
            samePrior = rechecked.compactMap(\.samePrior)
        }
        return Outcome(answers: answers, trainedDifferences: differences.map { ($0.0, $0.1, $0.2) },
                       samePriorDifferences: samePrior.map { ($0.0, $0.1, $0.2) }, seconds: Date().timeIntervalSince(start))
    }

    static func event(_ donation: Donation, _ resolver: TargetResolver) -> Event {
        Event(target: resolver.target(for: donation).key, date: donation.date, utcOffset: donation.utcOffset,
              context: donation.context, weight: Double(donation.count))
    }

    /// Every user fitted on its donations before its cutoff (a population fit when the model has one,
    /// unless `alone`).
    static func fits(_ entry: ModelEntry, histories: [[Donation]], cutoffs: [Date], resolver: TargetResolver,
                     workers: Int, alone: Bool = false) throws -> Fits {
        let trainings = zip(histories, cutoffs).map { history, cutoff in
            TrainingSet(donations: history.filter { $0.date < cutoff }, resolver: resolver)
        }
        if !alone, let population = entry.fitPopulation {
            let prepared = try population(trainings, nil, workers)
            return Fits { try prepared.fit($0) }
        }
        return Fits { try entry.fit(trainings[$0]) }
    }

    /// Fits user `index` of a prepared set (each once).
    struct Fits: Sendable {
        let fit: @Sendable (Int) throws -> any FittedModel
        init(_ fit: @escaping @Sendable (Int) throws -> any FittedModel) { self.fit = fit }
        func fit(_ index: Int) throws -> any FittedModel { try fit(index) }
    }

    /// The model's answer at the question's moment, with the 16 events before it as the moment's recent ones.
    static func ask(_ model: any FittedModel, _ question: WorldQuestion, events: [Event], names: [TargetKey: String]) -> WorldAnswer {
        let cut = events.firstIndex { $0.date >= question.date } ?? events.count
        let moment = Moment(date: question.date, utcOffset: question.utcOffset, context: question.context,
                            recent: Array(events[max(0, cut - 16) ..< cut]), asOfItsDate: true)
        let scores = model.scores(at: moment).map { (target: names[$0.target] ?? $0.target.rawValue, probability: $0.probability) }
        return WorldAnswer(id: question.id, scores: scores)
    }
}
