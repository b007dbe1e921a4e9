import Foundation
import ProactiveCore

// MARK: - Uses by local day

/// Every use of the last `DayHistory.keptDays` local days, by day: the minute of the day and the target
/// (`UsageTracker.dayHistory`). What the habit-rate signal (`HabitRateSignal`) reads: which targets were
/// used near a minute of the day on each past day, and what was used earlier today.
///
/// Flat arrays (days ascending, a day's uses in the order learned), so saving and copying are cheap.
/// Uses must come in time order (the tracker's owner replays its log otherwise).
package struct DayHistory: Sendable, Equatable {
    /// How many days back uses are kept (six months: a monthly habit's last five or six occurrences).
    package static let keptDays = 190
    /// Local day numbers with at least one use, ascending.
    private(set) var days: [Int32] = []
    /// Index into `minutes`/`targets` of each day's first use.
    private(set) var starts: [Int32] = []
    private(set) var minutes: [Float] = []
    private(set) var targets: [Int32] = []
    /// The first local day with a use, ever (the start of the exposure, kept when old days are dropped).
    private(set) var firstDay: Int?
    /// Uses at the same minute of the same day as the use before them, among the kept ones: uses that share
    /// an instant, as the rows of an aggregated log do (`sharesInstants`).
    private(set) var repeatedInstants = 0

    package init() {}

    init(days: [Int32], starts: [Int32], minutes: [Float], targets: [Int32], firstDay: Int?) {
        self.days = days
        self.starts = starts
        self.minutes = minutes
        self.targets = targets
        self.firstDay = firstDay
        for index in days.indices {
            let uses = self.uses(ofDayAt: index)
            for u in uses.dropFirst() where minutes[u] == minutes[u - 1] { repeatedInstants += 1 }
        }
    }

    /// Whether at least a quarter of the kept uses share their instant with the use before them: an
    /// aggregated log (rows of a part of the day at one instant), whose times are buckets, not moments.
    package var sharesInstants: Bool { repeatedInstants * 4 >= max(1, minutes.count) && minutes.count > 1 }

    /// Whether the stored arrays are consistent (a loaded state is checked with it).
    /// (Index loops, not `zip`: a `Zip2Sequence` of these arrays is a generic type the runtime would
    /// instantiate, and look up its conformances for, in every process that loads a state.)
    var isConsistent: Bool {
        guard days.count == starts.count, minutes.count == targets.count, days.isEmpty || firstDay != nil else { return false }
        for index in days.indices.dropFirst() where days[index - 1] >= days[index] || starts[index - 1] >= starts[index] {
            return false
        }
        return starts.allSatisfy { $0 >= 0 && Int($0) < minutes.count } && minutes.allSatisfy { $0 >= 0 && $0 < 1441 }
    }

    var useCount: Int { targets.count }

    mutating func record(target: Int, day: Int, minute: Double) {
        if firstDay == nil { firstDay = day }
        if let last = days.last, Int(last) > day { return }  // out of order: the owner replays
        if days.last.map({ Int($0) }) != day {
            days.append(Int32(day))
            starts.append(Int32(minutes.count))
        } else if minutes.last == Float(minute) {
            repeatedInstants += 1
        }
        minutes.append(Float(minute))
        targets.append(Int32(target))
        // Days older than the kept span go in blocks of 30, so appending stays amortised O(1).
        if let first = days.first, day - Int(first) > Self.keptDays + 30 {
            let keepFrom = days.firstIndex { day - Int($0) <= Self.keptDays } ?? days.count
            let dropUses = keepFrom < days.count ? Int(starts[keepFrom]) : minutes.count
            for index in 0 ..< keepFrom {
                let uses = self.uses(ofDayAt: index)
                for u in uses.dropFirst() where minutes[u] == minutes[u - 1] { repeatedInstants -= 1 }
            }
            days.removeFirst(keepFrom)
            starts.removeFirst(keepFrom)
            starts = starts.map { $0 - Int32(dropUses) }
            minutes.removeFirst(dropUses)
            targets.removeFirst(dropUses)
        }
    }

    /// The uses of stored day at position `index`.
    func uses(ofDayAt index: Int) -> Range<Int> {
        Int(starts[index]) ..< (index + 1 < starts.count ? Int(starts[index + 1]) : minutes.count)
    }

    func dayPosition(_ day: Int) -> Int? {
        var low = 0, high = days.count
        while low < high {
            let mid = (low + high) / 2
            if Int(days[mid]) < day { low = mid + 1 } else { high = mid }
        }
        return low < days.count && Int(days[low]) == day ? low : nil
    }
}

// MARK: - The habit-rate signal

/// The blend's `habitRate` signal: per target, the log of its rate of use in the coming hour at this
/// minute of the day, on days like today, given whether it was already used earlier today, learned from
/// the user's past days with the calendar structure the data supports.
///
/// For target t and each past day d (up to 26 weeks back, today excluded), y(d) is t's use in the hour
/// after this minute on that day, weighted by how soon (1 for a use at this minute, ½ half an hour
/// later), and a(d) whether t was used earlier that day. Days are grouped by a calendar *family*, each a
/// partition of days into cells:
///
/// | family | cells |
/// |---|---|
/// | every day | 1 |
/// | weekday or weekend | 2 |
/// | weekday | 7 |
/// | weekday x week parity, x week mod 3, x week mod 4 | 14, 21, 28 |
/// | day of the month | 31 |
/// | last day of the month or not | 2 |
/// | weekday x its ordinal in the month (first Monday) | 35 |
/// | weekday x whether it is the month's last such weekday | 14 |
///
/// Within a family, each cell and value of a has a Beta-Bernoulli rate shrunk toward the every-day
/// rate for that a (pseudo-count 2). In the three coarse families (every day, weekday or weekend,
/// weekday) a habit may have changed: besides one rate for all past days, each change point (14, 7 or
/// 3 days ago) gives the days after it a rate of their own, and the family's estimate averages these
/// hypotheses by their marginal likelihood (prior 0.85 on no change). A target used at random times
/// keeps the long-run rate of every past day, so its rate is not the luck of its last week, while a
/// daily habit that moved a week ago is at its new time. In the finer families each past day is
/// weighted by its recency among the days of its own cell (half as much four occurrences back), so a
/// monthly habit keeps its last occurrences. The families are averaged by their posterior probability
/// (their Beta-Binomial marginal likelihood of every past day's y with one rate per cell, each day
/// weighted by its age, half-life 60 days, times a prior favouring coarse families): a partition wins
/// only when the data says the calendar matters that way (rent on the 1st, a hike every other
/// Saturday).
///
/// Against all of these stands one more hypothesis: that the target's rate has no time of its own (an
/// app used at no fixed time). Its rate is the target's share of the user's uses (in the days read)
/// times the user's rate of use around this time (the five hours from two before the minute, so that a
/// habit's own burst does not make every app's rate), read from thousands of uses instead of the few in
/// this hour: the flat rate. It is weighed against the whole family mixture by their marginal
/// likelihoods of every past day's y (prior `flatPrior`), for a target with at least `flatMinimumUses`
/// uses (evidence weights) to estimate it from. An app used three times a day at random gets about
/// twice the rate of one used one and a half times, at any minute and whether or not it was used
/// earlier today; its few uses in one hour of past days would give either app's rate by luck.
/// A once-a-day habit already used today has a low rate again today (a = 1 days say so), and one whose
/// time has passed has a low rate (the hour after 22:15 held no workout on any past day).
///
/// ```swift
/// let logRates = HabitRateSignal.logRates(history, targets: 12, day: reading.day, minute: reading.minuteOfDay)
/// ```
package enum HabitRateSignal {
    /// The hour asked about, and the half-life (minutes) of a use's weight within it.
    static let horizon = 60.0
    static let soonHalfLife = 30.0
    /// Past days read (26 weeks).
    static let lookbackDays = 182
    /// Recency within a cell: a day counts half as much as the one `cellHalfLife` occurrences of its
    /// cell more recent.
    static let cellHalfLife = 4.0
    /// Where the coarse families may have changed: 14, 7 or 3 days ago (oldest first). A change point
    /// splits a cell's days in two, each with its own rate; no change keeps one rate for all of them.
    static let changeAges = [14, 7, 3]
    /// Prior probability of no change; the rest is shared evenly by the change points.
    static let noChangePrior = 0.85
    /// The families with change points (the first three: every day, weekday or weekend, weekday), where
    /// a habit moves, starts or stops; a finer family's cell holds too few recent days to tell.
    static let changeFamilies = 3
    /// Half-life (days) of the weights the families are compared with.
    static let evidenceHalfLifeDays = 60.0
    /// Pseudo-count of a cell's shrinkage toward the every-day rate.
    static let strength = 2.0
    /// The floor of a rate (a target never used in the hour after this minute still has some chance).
    static let floorRate = 1e-4
    /// Prior probability that a target's rate has no time of its own (the flat rate; the families share the rest).
    static let flatPrior = 0.2
    /// The least use (evidence-weighted, in the days read) a target needs for its flat rate to be weighed: a
    /// rate estimated from fewer uses is not a hypothesis worth a point.
    static let flatMinimumUses = 10.0
    /// Minutes before the asked minute and after it that the user's rate of use around this time is read from.
    static let activityBefore = 120.0, activityAfter = 180.0
    /// The mean weight of a use in the hour asked about (`soonHalfLife`), when uses fall evenly in it: what one
    /// use of the user's rate around this time adds to a y.
    static let meanSoonWeight = soonHalfLife / Foundation.log(2) * (1 - Foundation.exp2(-horizon / soonHalfLife)) / horizon

    /// Where each family's (S, N) sums per cell x a x stretch start in one array of all of them (the coarse
    /// families have `changeAges.count + 1` stretches, the finer ones one), and how many there are in all.
    static let familySumsOffsets: [Int] = families.indices.map { f in families[..<f].indices.reduce(0) { $0 + sumsCount(family: $1) } }
    static let familySumsCount = familySumsOffsets.last! + sumsCount(family: families.count - 1)

    /// How many (S, N) sums family `f` has: per cell, value of a and stretch.
    static func sumsCount(family f: Int) -> Int { families[f].cells * 2 * (f < changeFamilies ? changeAges.count + 1 : 1) * 2 }

    /// The calendar families: cells and prior probability.
    static let families: [(cells: Int, prior: Double)] = [
        (1, 0.5), (2, 0.2), (7, 0.1), (14, 0.025), (21, 0.025), (28, 0.025), (31, 0.025), (2, 0.025), (35, 0.025), (14, 0.025),
    ]

    /// Day `day`'s cell in every family.
    @inline(__always)
    static func cells(of day: CalendarDay, into out: UnsafeMutablePointer<Int32>) {
        let weekday = day.weekday
        let week = day.week
        out[0] = 0
        out[1] = day.isWeekend ? 1 : 0
        out[2] = Int32(weekday)
        out[3] = Int32(weekday * 2 + ((week % 2) + 2) % 2)
        out[4] = Int32(weekday * 3 + ((week % 3) + 3) % 3)
        out[5] = Int32(weekday * 4 + ((week % 4) + 4) % 4)
        out[6] = Int32(day.dayOfMonth - 1)
        out[7] = day.daysToMonthEnd == 0 ? 1 : 0
        out[8] = Int32(weekday * 5 + min(day.weekdayOrdinal, 5) - 1)
        out[9] = Int32(weekday * 2 + (day.isLastWeekdayOfMonth ? 1 : 0))
    }

    /// The mean of `values[0 ..< count]` weighted by exp(`logWeights[i]`), each weight taken relative to
    /// the largest so that none overflows: a posterior mean from unnormalised log posteriors.
    ///
    ///     posteriorMean(logWeights: [0, log(3)], values: [1, 2], count: 2)   // 1.75
    @inline(__always)
    static func posteriorMean(logWeights: [Double], values: [Double], count: Int) -> Double {
        var top = -Double.infinity
        for i in 0 ..< count { top = max(top, logWeights[i]) }
        var weightSum = 0.0, mixed = 0.0
        for i in 0 ..< count {
            let w = Foundation.exp(logWeights[i] - top)
            weightSum += w
            mixed += w * values[i]
        }
        return mixed / weightSum
    }

    /// log rate per target (index order) at local `minute` of local day `day`, from the history's days
    /// before `day` and its uses of `day` before `minute`. All targets get log(`floorRate`)-ish values
    /// and no information when there is no past day.
    package static func logRates(_ history: DayHistory, targets: Int, day: Int, minute: Double) -> [Double] {
        rates(history, targets: targets, day: day, minute: minute).calendar
    }

    /// Per target (index order): the log rate of the every-day family alone (`everyDay`: this minute, whether
    /// used earlier today, no calendar) and of the families averaged (`calendar`, `logRates`). Their
    /// difference is what the calendar adds (the blend's `calendarLift`): 0 for a target used the same on
    /// every kind of day, so rows of such targets say nothing of its weight.
    package static func rates(_ history: DayHistory, targets: Int, day: Int, minute: Double) -> (everyDay: [Double], calendar: [Double]) {
        guard targets > 0 else { return ([], []) }
        let flat = [Double](repeating: Foundation.log(0.05), count: targets)
        guard let firstDay = history.firstDay else { return (flat, flat) }
        let low = max(firstDay, day - lookbackDays), high = day - 1
        guard high >= low else { return (flat, flat) }
        let table = DayTable.shared(low: low, day: day)
        let dayCount = table.dayCount
        let familyCount = families.count
        let cells = table.cells, evidence = table.evidence, recency = table.recency, bin = table.bin

        // The uses of the past days in the coming hour (their y) and, of the targets they are (the active ones,
        // each given a slot), the uses before the minute; then both grouped by slot (a counting sort), so each
        // active target reads its own uses only.
        let end = minute + horizon
        let first = history.days.firstIndex { Int($0) >= low } ?? history.days.count
        var last = first
        while last < history.days.count, Int(history.days[last]) <= high { last += 1 }
        var slotOf = [Int32](repeating: -1, count: targets)
        var active: [Int] = []
        var soonUses: [(slot: Int32, day: Int32, y: Double)] = []
        var earlierUses: [(slot: Int32, day: Int32)] = []
        // For the flat rate: each target's uses in the days read, and every use around this time, by evidence weight.
        var useWeight = [Double](repeating: 0, count: targets)
        var around = 0.0
        let aroundLow = max(0, minute - activityBefore), aroundHigh = min(1440, minute + activityAfter)
        // One pass over the days read gathers those sums and each target's uses in the coming hour; a second, once the
        // targets with such uses are known, their uses earlier on the same days.
        for position in first ..< last {
            let i = Int(history.days[position]) - low
            let e = evidence[i]
            for u in history.uses(ofDayAt: position) {
                let t = Int(history.targets[u])
                guard t < targets else { continue }
                let m = Double(history.minutes[u])
                useWeight[t] += e
                if m >= aroundLow, m < aroundHigh { around += e }
                if m >= minute, m < end {
                    if slotOf[t] < 0 {
                        slotOf[t] = Int32(active.count)
                        active.append(t)
                    }
                    soonUses.append((slotOf[t], Int32(i), Foundation.exp2(-(m - minute) / soonHalfLife)))
                }
            }
        }
        for position in first ..< last {
            let i = Int32(Int(history.days[position]) - low)
            for u in history.uses(ofDayAt: position) {
                let t = Int(history.targets[u])
                guard t < targets, Double(history.minutes[u]) < minute, slotOf[t] >= 0 else { continue }
                earlierUses.append((slotOf[t], i))
            }
        }
        let soonBySlot = Self.grouped(soonUses, slots: active.count, slot: { Int($0.slot) })
        let earlierBySlot = Self.grouped(earlierUses, slots: active.count, slot: { Int($0.slot) })
        var usedToday = [Bool](repeating: false, count: active.count)
        if let at = history.dayPosition(day) {
            for u in history.uses(ofDayAt: at) where Double(history.minutes[u]) < minute {
                let t = Int(history.targets[u])
                if t < targets, slotOf[t] >= 0 { usedToday[Int(slotOf[t])] = true }
            }
        }
        let todayCells = table.todayCells
        let evidenceTotal = table.evidenceTotal
        var useTotal = 0.0
        for w in useWeight { useTotal += w }
        // The y a use of the user's around this time adds per day: uses per hour around now, times a use's mean weight.
        let aroundRate = around / max(evidenceTotal, 1e-300) * horizon / max(aroundHigh - aroundLow, 1) * meanSoonWeight
        let inactive = Foundation.log(max(floorRate, 0.05 / (evidenceTotal + 1)))
        var result = [Double](repeating: inactive, count: targets)
        var everyDay = result
        let maxCells = families.map(\.cells).max()! * 2
        let bins = changeAges.count + 1
        var sums = [Double](repeating: 0, count: maxCells * bins * 2)  // (S, N) per cell x a x stretch, evidence weights
        var logPosterior = [Double](repeating: 0, count: familyCount)
        var estimate = [Double](repeating: 0, count: familyCount)
        var hypothesisWeight = [Double](repeating: 0, count: bins)  // per change point of a coarse family: log posterior
        var hypothesisRate = [Double](repeating: 0, count: bins)    // and today's rate under it
        var y = [Double](repeating: 0, count: dayCount)
        var a = [Int](repeating: 0, count: dayCount)
        var soonDays: [Int] = []  // the target's days with a use in the coming hour, ascending
        let logFamilyPrior = Self.logFamilyPrior, logHypothesisPrior = Self.logHypothesisPrior
        var base = [0.0, 0.0]
        var logBetaPrior = [0.0, 0.0]  // per a: logBeta(alpha, beta) of that a's every-day rate
        var familySums = [Double](repeating: 0, count: Self.familySumsCount)  // a used-before target's sums, every family
        var familyRecent = [(s: Double, n: Double)](repeating: (0, 0), count: familyCount)
        var logGammaAlpha = [0.0, 0.0]  // per a: lgamma(alpha), the first term of a cell's logBeta with no use (s = 0)
        // What a target never used before the minute on a past day shares with every such target (`DayTable`): its
        // own sums then only add its days with a use in the hour (y > 0); a day with y = 0 adds +0, which changes no sum.
        let sharedSums = table.sharedSums, sharedRecentN = table.sharedRecentN
        for (slot, t) in active.enumerated() {
            for i in soonDays { y[i] = 0 }
            soonDays.removeAll(keepingCapacity: true)
            for use in soonBySlot.range(slot) {
                let i = Int(use.day)
                if y[i] == 0 { soonDays.append(i) }
                y[i] = max(y[i], use.y)
            }
            let earlierUses = earlierBySlot.range(slot)
            let usedBefore = !earlierUses.isEmpty
            if usedBefore {
                for i in 0 ..< dayCount { a[i] = 0 }
                for use in earlierUses { a[Int(use.day)] = 1 }
            }
            let aToday = usedToday[slot] ? 1 : 0
            // The every-day rates (evidence weights) that every family's cells shrink toward, per a.
            var total = (s: 0.0, n: 0.0)
            var byA = ((s: 0.0, n: 0.0), (s: 0.0, n: 0.0))
            if usedBefore {
                for i in 0 ..< dayCount {
                    total.s += evidence[i] * y[i]
                    total.n += evidence[i]
                    if a[i] == 0 {
                        byA.0.s += evidence[i] * y[i]
                        byA.0.n += evidence[i]
                    } else {
                        byA.1.s += evidence[i] * y[i]
                        byA.1.n += evidence[i]
                    }
                }
            } else {
                for i in soonDays { total.s += evidence[i] * y[i] }
                total.n = evidenceTotal
                byA.0 = total
            }
            let overall = (total.s + 0.05) / (total.n + 1)
            base[0] = min(max(((byA.0.s + overall) / (byA.0.n + 1)), 1e-6), 1 - 1e-6)
            base[1] = min(max(((byA.1.s + overall) / (byA.1.n + 1)), 1e-6), 1 - 1e-6)
            for k in 0 ..< 2 {
                let alpha = strength * base[k], beta = strength * (1 - base[k])
                logGammaAlpha[k] = logGamma(alpha)
                logBetaPrior[k] = logGammaAlpha[k] + logGamma(beta) - logGamma(alpha + beta)
            }
            let lgAlpha = (logGammaAlpha[0], logGammaAlpha[1])
            if usedBefore {
                // Every family's sums in one pass over the days (each slot still sums its days in day order).
                for k in 0 ..< Self.familySumsCount { familySums[k] = 0 }
                for f in 0 ..< familyCount { familyRecent[f] = (0, 0) }
                let offsets = Self.familySumsOffsets
                for i in 0 ..< dayCount {
                    let e = evidence[i], yi = y[i], ey = e * yi, ai = a[i], stretch = bin[i], row = i * familyCount
                    for f in 0 ..< changeFamilies {
                        let slot = offsets[f] + ((Int(cells[row + f]) * 2 + ai) * bins + stretch) * 2
                        familySums[slot] += ey
                        familySums[slot + 1] += e
                    }
                    for f in changeFamilies ..< familyCount {
                        let cellA = Int(cells[row + f]) * 2 + ai
                        let slot = offsets[f] + cellA * 2
                        familySums[slot] += ey
                        familySums[slot + 1] += e
                        if cellA == Int(todayCells[f]) * 2 + aToday {
                            let r = recency[row + f]
                            familyRecent[f].s += r * yi
                            familyRecent[f].n += r
                        }
                    }
                }
            }
            for f in 0 ..< familyCount {
                let cellCount = families[f].cells
                // Change points only where a habit moves (every day, weekday/weekend, weekday); a finer
                // family's cell holds few days of a recent stretch, and its estimate weighs each day by
                // its recency among the days of its cell instead.
                let coarse = f < changeFamilies
                let stretches = coarse ? bins : 1
                let todayA = Int(todayCells[f]) * 2 + aToday
                var recent = (s: 0.0, n: 0.0)  // today's cell and a, recency weights (finer families)
                if usedBefore {
                    let offset = Self.familySumsOffsets[f]
                    for k in 0 ..< Self.sumsCount(family: f) { sums[k] = familySums[offset + k] }
                    if !coarse { recent = familyRecent[f] }
                } else {
                    let offset = Self.familySumsOffsets[f]
                    for k in 0 ..< Self.sumsCount(family: f) { sums[k] = sharedSums[offset + k] }
                    for i in soonDays {
                        let cellA = Int(cells[i * familyCount + f]) * 2
                        sums[(cellA * stretches + (coarse ? bin[i] : 0)) * 2] += evidence[i] * y[i]
                        if !coarse, cellA == todayA { recent.s += recency[i * familyCount + f] * y[i] }
                    }
                    if aToday == 0 { recent.n = sharedRecentN[f] }
                }
                /// Log marginal likelihood of every cell's days when the stretches from `split` on have a rate
                /// of their own (`split == stretches`: one rate for all).
                func logLikelihood(split: Int) -> Double {
                    var total = 0.0
                    for cellA in 0 ..< cellCount * 2 {
                        let p = base[cellA % 2]
                        let alpha = strength * p, beta = strength * (1 - p)
                        var before = (s: 0.0, n: 0.0), after = (s: 0.0, n: 0.0)
                        for b in 0 ..< stretches {
                            let slot = (cellA * stretches + b) * 2
                            if b < split { before.s += sums[slot]; before.n += sums[slot + 1] } else { after.s += sums[slot]; after.n += sums[slot + 1] }
                        }
                        let prior = logBetaPrior[cellA % 2]
                        let lgammaOfAlpha = cellA % 2 == 0 ? lgAlpha.0 : lgAlpha.1
                        if before.n > 0 { total += logBeta(before.s, before.n, alpha, beta, lgammaOfAlpha) - prior }
                        if after.n > 0 { total += logBeta(after.s, after.n, alpha, beta, lgammaOfAlpha) - prior }
                    }
                    return total
                }
                /// Today's cell rate from the stretches `from` on.
                func rate(from: Int) -> Double {
                    var part = (s: 0.0, n: 0.0)
                    for b in from ..< stretches {
                        part.s += sums[(todayA * stretches + b) * 2]
                        part.n += sums[(todayA * stretches + b) * 2 + 1]
                    }
                    return (part.s + strength * base[aToday]) / (part.n + strength)
                }
                // The family is compared with the others by its no-change fit, so change points do not make a
                // coarse family outbid a calendar one.
                let noChange = logLikelihood(split: stretches)
                logPosterior[f] = logFamilyPrior[f] + noChange
                guard coarse else {
                    estimate[f] = (recent.s + strength * base[aToday]) / (recent.n + strength)
                    continue
                }
                // Its estimate averages no change and a change at each point (the stretches after it with
                // their own rate) by their posterior.
                // (split 0 is no change: every stretch in one rate.)
                for split in 0 ..< stretches {
                    hypothesisWeight[split] = split == 0 ? logHypothesisPrior.noChange + noChange
                        : logHypothesisPrior.change + logLikelihood(split: split)
                    hypothesisRate[split] = rate(from: split)
                }
                estimate[f] = HabitRateSignal.posteriorMean(logWeights: hypothesisWeight, values: hypothesisRate, count: stretches)
            }
            let mean = HabitRateSignal.posteriorMean(logWeights: logPosterior, values: estimate, count: familyCount)
            guard useWeight[t] >= flatMinimumUses, useTotal > 0 else {
                everyDay[t] = Foundation.log(max(estimate[0], floorRate))
                result[t] = Foundation.log(max(mean, floorRate))
                continue
            }
            // The flat rate against the families: the latter's marginal likelihood is their mixture's (their priors
            // sum to 1); the flat rate's is that of a known rate. Both outputs mix in the flat rate by its posterior,
            // so the calendar adds nothing to a target whose rate has no time.
            let flat = min(max(useWeight[t] / useTotal * aroundRate, 1e-6), 1 - 1e-6)
            let s = min(total.s, total.n)
            let timed = Foundation.log(1 - flatPrior) + Softmax.logSumExp(logPosterior)
            let untimed = Foundation.log(flatPrior) + s * Foundation.log(flat) + (total.n - s) * Foundation.log(1 - flat)
            let pFlat = 1 / (1 + Foundation.exp(timed - untimed))
            everyDay[t] = Foundation.log(max(pFlat * flat + (1 - pFlat) * estimate[0], floorRate))
            result[t] = Foundation.log(max(pFlat * flat + (1 - pFlat) * mean, floorRate))
        }
        return (everyDay, result)
    }

    /// exp2(-age / `evidenceHalfLifeDays`) for every age of a past day read (0 ... `lookbackDays`): a past day's
    /// evidence weight, the same exponential as computing it, once.
    static let evidenceByAge: [Double] = (0 ... lookbackDays).map { Foundation.exp2(-Double($0) / evidenceHalfLifeDays) }
    /// exp2(-seen / `cellHalfLife`) for every count of more recent days of the same cell (0 ... `lookbackDays`).
    static let recencyBySeen: [Double] = (0 ... lookbackDays).map { Foundation.exp2(-Double($0) / cellHalfLife) }
    /// log of each family's prior, and of the prior of no change and of one change point (the coarse families'
    /// hypotheses: `changeAges.count` change points).
    static let logFamilyPrior: [Double] = families.map { Foundation.log($0.prior) }
    static let logHypothesisPrior = (noChange: Foundation.log(noChangePrior),
                                     change: Foundation.log((1 - noChangePrior) / Double(changeAges.count)))

    /// `items` grouped by `slot` (0 ..< `slots`), each group in the items' order: a counting sort.
    static func grouped<Item>(_ items: [Item], slots: Int, slot: (Item) -> Int) -> Grouped<Item> {
        var starts = [Int](repeating: 0, count: slots + 1)
        for item in items { starts[slot(item) + 1] += 1 }
        for s in 0 ..< slots { starts[s + 1] += starts[s] }
        var next = starts
        let sorted = [Item](unsafeUninitializedCapacity: items.count) { buffer, count in
            for item in items {
                let s = slot(item)
                (buffer.baseAddress! + next[s]).initialize(to: item)
                next[s] += 1
            }
            count = items.count
        }
        return Grouped(items: sorted, starts: starts)
    }

    /// Items grouped by slot (`grouped`): slot s's are `items[starts[s] ..< starts[s + 1]]`.
    struct Grouped<Item> {
        let items: [Item]
        let starts: [Int]
        func range(_ slot: Int) -> ArraySlice<Item> { items[starts[slot] ..< starts[slot + 1]] }
    }

    @inline(__always)
    static func logBeta(_ a: Double, _ b: Double) -> Double { logGamma(a) + logGamma(b) - logGamma(a + b) }

    /// logBeta(s + alpha, n - s + beta), a cell's Beta-Binomial term, with `lgammaOfAlpha` (lgamma(alpha), computed
    /// once per target) standing for lgamma(s + alpha) where s is 0, as most cells' are: the same value to the bit.
    @inline(__always)
    static func logBeta(_ s: Double, _ n: Double, _ alpha: Double, _ beta: Double, _ lgammaOfAlpha: Double) -> Double {
        let a = s + alpha, b = n - s + beta
        return (s == 0 ? lgammaOfAlpha : logGamma(a)) + logGamma(b) - logGamma(a + b)
    }

    /// lgamma(x) without the C library's `signgam` bookkeeping: `lgamma_r`, the same computation and value.
    @inline(__always)
    static func logGamma(_ x: Double) -> Double {
        var sign: Int32 = 0
        return lgamma_r(x, &sign)
    }
}

// MARK: - What the days read share

/// The part of `HabitRateSignal.rates` that depends only on the days it reads (`low` ... `day` - 1) and the day
/// asked about: per past day, its cell in every family, its evidence weight and (finer families) its recency
/// weight among the days of its cell, and which stretch of the recent past it is in (for the change points);
/// today's cells; and what a target never used before the minute on a past day (a = 0 every day) shares with
/// every such target: per family, the evidence sums of each cell and stretch (its sums' N) and the recency
/// total of today's cell, summed in day order as the per-target loop sums them.
///
/// Every user whose days reach back `lookbackDays` reads the same days on the same day, so a table is kept for
/// the last few (`shared(low:day:)`) and computed once for all of their questions that day.
///
///     let table = DayTable.shared(low: day - 182, day: day)   // table.cells[i * families.count + f]
final class DayTable: Sendable {
    let low: Int, day: Int
    var dayCount: Int { day - low }
    /// Per past day (row) and family (column): the day's cell.
    let cells: [Int32]
    /// Per past day: exp2(-age / `evidenceHalfLifeDays`), and their sum in day order.
    let evidence: [Double]
    let evidenceTotal: Double
    /// Per past day and family (finer families; 0 in the coarse ones): exp2(-later days of its cell / `cellHalfLife`).
    let recency: [Double]
    /// Per past day: its stretch (0 oldest, `changeAges.count` the newest).
    let bin: [Int]
    /// Today's cell in every family.
    let todayCells: [Int32]
    /// Every family's (S, N) per cell x a x stretch with S = 0 and a = 0 every day, laid out as
    /// `HabitRateSignal.familySumsOffsets` says.
    let sharedSums: [Double]
    /// Per family (finer ones): the recency total of the past days in today's cell.
    let sharedRecentN: [Double]

    /// The table of past days `low` ..< `day` (`low` < `day`).
    init(low: Int, day: Int) {
        typealias Signal = HabitRateSignal
        let families = Signal.families, familyCount = families.count
        let dayCount = day - low, high = day - 1
        self.low = low
        self.day = day
        var cells = [Int32](repeating: 0, count: dayCount * familyCount)
        cells.withUnsafeMutableBufferPointer { cells in
            for i in 0 ..< dayCount { Signal.cells(of: CalendarDay(day: low + i), into: cells.baseAddress! + i * familyCount) }
        }
        let evidenceByAge = Signal.evidenceByAge, recencyBySeen = Signal.recencyBySeen
        var evidence = [Double](repeating: 0, count: dayCount)
        for i in 0 ..< dayCount { evidence[i] = evidenceByAge[high - (low + i)] }
        var recency = [Double](repeating: 0, count: dayCount * familyCount)
        var seen = [Int](repeating: 0, count: families.map(\.cells).max()!)
        for f in Signal.changeFamilies ..< familyCount {
            for c in 0 ..< families[f].cells { seen[c] = 0 }
            for i in stride(from: dayCount - 1, through: 0, by: -1) {
                let c = Int(cells[i * familyCount + f])
                recency[i * familyCount + f] = recencyBySeen[seen[c]]
                seen[c] += 1
            }
        }
        var bin = [Int](repeating: 0, count: dayCount)
        for i in 0 ..< dayCount {
            let age = high - (low + i)
            bin[i] = Signal.changeAges.firstIndex { age >= $0 } ?? Signal.changeAges.count
        }
        var todayCells = [Int32](repeating: 0, count: familyCount)
        todayCells.withUnsafeMutableBufferPointer { Signal.cells(of: CalendarDay(day: day), into: $0.baseAddress!) }
        var evidenceTotal = 0.0
        for i in 0 ..< dayCount { evidenceTotal += evidence[i] }
        let bins = Signal.changeAges.count + 1
        var sharedSums = [Double](repeating: 0, count: Signal.familySumsCount)
        var sharedRecentN = [Double](repeating: 0, count: familyCount)
        for f in 0 ..< familyCount {
            let coarse = f < Signal.changeFamilies
            let stretches = coarse ? bins : 1
            let offset = Signal.familySumsOffsets[f]
            for i in 0 ..< dayCount {
                let cellA = Int(cells[i * familyCount + f]) * 2
                sharedSums[offset + (cellA * stretches + (coarse ? bin[i] : 0)) * 2 + 1] += evidence[i]
                if !coarse, cellA == Int(todayCells[f]) * 2 { sharedRecentN[f] += recency[i * familyCount + f] }
            }
        }
        self.cells = cells
        self.evidence = evidence
        self.evidenceTotal = evidenceTotal
        self.recency = recency
        self.bin = bin
        self.todayCells = todayCells
        self.sharedSums = sharedSums
        self.sharedRecentN = sharedRecentN
    }

    /// The table of `low` ..< `day`, from the last `kept` asked for (computed and kept when it is not among them).
    static func shared(low: Int, day: Int) -> DayTable {
        if let table = recent.find(low: low, day: day) { return table }
        let table = DayTable(low: low, day: day)
        recent.keep(table)
        return table
    }

    /// How many tables are kept: a few days, or a few first days of users with less than `lookbackDays` of days.
    static let kept = 8
    private static let recent = Recent()

    /// The last `kept` tables, newest last, behind a lock (questions of several users run at once).
    private final class Recent: @unchecked Sendable {
        private let lock = NSLock()
        private var tables: [DayTable] = []

        func find(low: Int, day: Int) -> DayTable? {
            lock.lock()
            defer { lock.unlock() }
            return tables.last { $0.low == low && $0.day == day }
        }

        func keep(_ table: DayTable) {
            lock.lock()
            defer { lock.unlock() }
            if tables.count >= DayTable.kept { tables.removeFirst() }
            tables.append(table)
        }
    }
}
