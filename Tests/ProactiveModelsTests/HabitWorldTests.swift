import Foundation
import ProactiveCore
@testable import ProactiveLab
@testable import ProactiveModels
import Testing

@Suite("Habit worlds, their oracle and the calendar")
struct HabitWorldTests {
    @Test func calendarDaysMatchFoundation() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for day in stride(from: -800, through: 30_000, by: 37) {
            let date = Date(timeIntervalSince1970: Double(day) * 86_400)
            let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: date)
            let ours = CalendarDay(day: day)
            #expect(ours.year == parts.year && ours.month == parts.month && ours.dayOfMonth == parts.day)
            #expect(ours.weekday == (parts.weekday! + 5) % 7)  // Foundation: Sunday = 1
            #expect(ours.daysInMonth == calendar.range(of: .day, in: .month, for: date)!.count)
            #expect(CalendarDay(day: day + 7).week == ours.week + 1)
        }
        let firstThursday = CalendarDay(day: 20_454)  // 2026-01-01
        #expect(firstThursday.weekdayOrdinal == 1 && !firstThursday.isLastWeekdayOfMonth && firstThursday.daysToMonthEnd == 30)
    }

    @Test func theSameSeedGivesTheSameWorld() {
        let a = WorldSet.make(seeds: [1000, 1001], samples: 500)
        let b = WorldSet.make(seeds: [1000, 1001], samples: 500)
        #expect(a.donations == b.donations)
        #expect(a.questions.map(\.oracle.next) == b.questions.map(\.oracle.next))
        #expect(a.questions.count == 2 * 40)
        // Eight questions a world after a silence, one to three days after the training end; they have
        // rows of their own in the report and count in no kind nor in the total.
        for (index, world) in a.worlds.enumerated() {
            let silent = a.questions.filter { $0.world == index && $0.mode == .silent }
            #expect(silent.count == 8)
            #expect(silent.allSatisfy { (world.trainDays + 1 ... world.trainDays + 3).contains($0.day) })
        }
        let answers = a.questions.map { question in
            WorldAnswer(id: question.id, scores: question.oracle.next.sorted { $0.value > $1.value }.map { ($0.key, $0.value) })
        }
        let report = WorldsReport(questions: a.questions, answers: answers)
        let silentQuestions = ["silent-random", "silent-habit"].map { report.byMode[$0]?.questions ?? 0 }.reduce(0, +)
        #expect(silentQuestions > 0)
        #expect(report.overall.questions + silentQuestions == report.byMode.values.map(\.questions).reduce(0, +))
        #expect(report.byKind.values.map(\.questions).reduce(0, +) == report.overall.questions)
        #expect(WorldSet.make(seeds: [1002], samples: 10).donations != a.donations)
    }

    /// `alone` fits each world's user on its own donations: the fixed prior instead of the population's.
    @Test func aloneFitsEachUserWithoutAPopulation() throws {
        let set = WorldSet.make(seeds: [1000, 1001], generator: WorldGenerator(days: 60, trainDays: 30), samples: 50)
        let entry = try #require(ModelRegistry.builtIn.entry(named: ModelRegistry.builtIn.defaultName))
        var byUser: [String: [Donation]] = [:]
        for donation in set.donations { byUser[donation.user, default: []].append(donation) }
        let histories = set.worlds.map { byUser[$0.user] ?? [] }
        let cutoffs = set.worlds.map(\.trainEnd)
        for alone in [false, true] {
            let fits = try WorldsBenchmark.fits(entry, histories: histories, cutoffs: cutoffs, resolver: TargetResolver(), workers: 1,
                                                alone: alone)
            let prior = try #require(try fits.fit(0) as? BlendModel).prior
            #expect(prior.isFixed == alone, "\(prior.name)")
        }
    }

    /// One habit, never skipped, at 07:00 ± 3 min on the 1st of the month: just before it on a 1st the
    /// oracle is sure of it; on the 2nd it says nothing comes within the hour; after it was used, nothing.
    @Test func theOracleKnowsAMonthlyHabit() {
        let rent = WorldHabit(kind: .dayOfMonth, app: "com.example.rent", intent: "Pay", rule: .dayOfMonth(1), minute: 420, jitter: 3, skip: 0)
        let first = 20_454  // 2026-01-01
        let world = HabitWorld(seed: 1, user: "u", timeZone: TimeZone(identifier: "UTC")!, firstDay: first, days: 100, trainDays: 60,
                               habits: [rent], noise: [], focusDays: [Bool](repeating: false, count: 100))
        let uses = world.uses()
        #expect(uses.count == 4)  // Jan 1, Feb 1, Mar 1, Apr 1
        let oracle = WorldOracle(world: world, uses: uses)
        let february1 = 31
        let before = oracle.answer(day: february1, minute: 405, samples: 2000, seed: 3)
        #expect(before.next["com.example.rent/Pay"] == 1)
        #expect(before.nothing < 0.01)
        #expect(before.confident)
        let february2 = oracle.answer(day: 32, minute: 405, samples: 2000, seed: 3)
        #expect(february2.nothing == 1)
        let use = uses[1].minute
        #expect(oracle.answer(day: february1, minute: use + 1, samples: 500, seed: 3).nothing == 1)
        // The same moment when the day's uses went unrecorded: a habit that never skips is still to come.
        let unseen = oracle.answer(day: february1, minute: use + 1, samples: 500, seed: 3, seenToday: false)
        #expect(unseen.next["com.example.rent/Pay"] == 1 && unseen.nothing < 1)
    }

    /// A follower comes only after its leader: before the leader was used, the leader is next.
    @Test func theOracleOrdersAFollowerAfterItsLeader() {
        let weather = WorldHabit(kind: .daily, app: "w", intent: "Check", rule: .every, minute: 420, jitter: 2, skip: 0)
        var coffee = WorldHabit(kind: .follows, app: "c", intent: "Order", rule: .every, minute: 420, jitter: 0, skip: 0)
        coffee.leader = 0
        coffee.delay = 3 ... 6
        let world = HabitWorld(seed: 2, user: "u", timeZone: TimeZone(identifier: "Europe/Berlin")!, firstDay: 20_454, days: 10,
                               trainDays: 5, habits: [weather, coffee], noise: [], focusDays: [Bool](repeating: false, count: 10))
        let uses = world.uses()
        let oracle = WorldOracle(world: world, uses: uses)
        #expect(oracle.answer(day: 7, minute: 410, samples: 1000, seed: 1).top?.target == "w/Check")
        let weatherUse = uses.first { $0.day == 7 && $0.target == "w/Check" }!.minute
        #expect(oracle.answer(day: 7, minute: weatherUse + 1, samples: 1000, seed: 1).next["c/Order"] == 1)
    }

    /// The habit-rate signal learns a day-of-month habit: on the 1st the rent leads, on another day the
    /// daily mail at the same time does.
    @Test func theHabitRateLearnsADayOfTheMonth() {
        var history = DayHistory()
        let first = 20_454  // 2026-01-01
        for d in 0 ..< 150 {
            let day = CalendarDay(day: first + d)
            history.record(target: 0, day: first + d, minute: 540 + Double(d % 5))   // mail every day at 09:00
            if day.dayOfMonth == 1 { history.record(target: 1, day: first + d, minute: 545) }  // rent on the 1st
        }
        let june1 = first + 151   // 2026-06-01
        #expect(CalendarDay(day: june1).dayOfMonth == 1)
        let onThe1st = HabitRateSignal.logRates(history, targets: 2, day: june1, minute: 535)
        #expect(onThe1st[1] > Foundation.log(0.3))
        let onThe2nd = HabitRateSignal.logRates(history, targets: 2, day: june1 + 1, minute: 535)
        #expect(onThe2nd[1] < Foundation.log(0.1))
        #expect(onThe1st[1] > onThe2nd[1] + Foundation.log(5))
        #expect(onThe2nd[0] > Foundation.log(0.5))
    }

    /// Two apps used at random times, about 2.7 and 1.3 times a day: at any minute, whether or not either
    /// was used earlier today, the habit rate gives the first about twice the second's rate (their flat
    /// rates), not whatever their few uses in that hour say; a daily habit keeps its own time.
    @Test func appsUsedAtNoFixedTimeKeepTheirRatesRatio() {
        var random = SeededGenerator(seed: 5)
        var history = DayHistory()
        let first = 20_454
        func count(mean: Double) -> Int {
            var n = 0, p = Foundation.exp(-mean)
            var cumulative = p
            let u = random.unit()
            while u > cumulative {
                n += 1
                p *= mean / Double(n)
                cumulative += p
            }
            return n
        }
        for d in 0 ..< 150 {
            var uses: [(minute: Double, target: Int)] = [(540 + 10 * random.unit(), 2)]  // a habit at 09:00
            for (target, mean) in [(0, 2.7), (1, 1.3)] {
                for _ in 0 ..< count(mean: mean) { uses.append((480 + 840 * random.unit(), target)) }
            }
            for use in uses.sorted(by: { $0.minute < $1.minute }) { history.record(target: use.target, day: first + d, minute: use.minute) }
        }
        var ratios: [Double] = []
        for earlier in [[], [0], [1], [0, 1]] {
            var h = history
            for target in earlier { h.record(target: target, day: first + 150, minute: 500 + Double(target)) }
            for minute in stride(from: 600.0, through: 1200, by: 60) {
                let rates = HabitRateSignal.rates(h, targets: 3, day: first + 150, minute: minute)
                for r in [rates.everyDay, rates.calendar] { ratios.append(Foundation.exp(r[0] - r[1])) }
            }
        }
        #expect(ratios.allSatisfy { $0 > 1.5 && $0 < 3.5 }, "rate of the 2.7-a-day app / of the 1.3-a-day one: \(ratios)")
        let habit = HabitRateSignal.rates(history, targets: 3, day: first + 150, minute: 535).everyDay
        #expect(habit[2] > habit[0] + Foundation.log(3), "the habit at its time")
    }

    /// Uses at distinct minutes are moments; a log whose rows share instants (aggregated) has bucket times,
    /// which the habit rate and the row lead leave alone.
    @Test func aggregatedRowsShareInstants() {
        var moments = DayHistory()
        for d in 0 ..< 10 { for (k, minute) in [420.0, 600, 1260].enumerated() { moments.record(target: k, day: 20_000 + d, minute: minute) } }
        #expect(!moments.sharesInstants)
        var buckets = DayHistory()
        for d in 0 ..< 10 { for k in 0 ..< 4 { buckets.record(target: k, day: 20_000 + d, minute: 540) } }
        #expect(buckets.sharesInstants)
        let reloaded = DayHistory(days: buckets.days, starts: buckets.starts, minutes: buckets.minutes, targets: buckets.targets,
                                  firstDay: buckets.firstDay)
        #expect(reloaded == buckets, "the count of shared instants is rebuilt on load")
    }
}
