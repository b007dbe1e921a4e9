import Foundation
import ProactiveCore
@testable import ProactiveModels
import Testing

/// The habit-rate signal computed per question from grouped uses and shared sums gives the same bits as
/// its direct formulation (one Set of earlier targets per past day, every day's uses scanned per target,
/// every sum over every past day), kept here as the reference.
@Suite("Habit rate: the same bits as the direct formulation")
struct HabitRateReferenceTests {
    /// Seeded histories: a few habits near fixed minutes (used on most days, some earlier in the day too)
    /// and many rarely used targets, asked at several minutes of several days, some with uses earlier today.
    @Test func ratesEqualTheReferenceBitForBit() {
        var random = SeededGenerator(seed: 45)
        for (targets, daysOfUse, usesPerDay) in [(6, 40, 8), (40, 200, 12), (300, 120, 20)] {
            var history = DayHistory()
            let firstDay = 20_454
            for day in firstDay ..< firstDay + daysOfUse {
                // Half the uses go to the first few targets (habits), near their minute; the rest anywhere; in time order.
                var uses: [(minute: Double, target: Int)] = []
                for _ in 0 ..< usesPerDay {
                    if random.chance(0.5) {
                        let target = random.integer(in: 0 ... min(4, targets - 1))
                        uses.append((min(1_439, max(0, 420 + Double(target) * 90 + (random.unit() - 0.5) * 40)), target))
                    } else {
                        uses.append((random.unit() * 1_440, random.integer(in: 0 ... (targets - 1))))
                    }
                }
                for use in uses.sorted(by: { $0.minute < $1.minute }) { history.record(target: use.target, day: day, minute: use.minute) }
            }
            for _ in 0 ..< 12 {
                let day = firstDay + random.integer(in: 1 ... daysOfUse + 3)
                let minute = random.unit() * 1_440
                let ours = HabitRateSignal.rates(history, targets: targets, day: day, minute: minute)
                let reference = HabitRateSignal.referenceRates(history, targets: targets, day: day, minute: minute)
                #expect(ours.everyDay.map(\.bitPattern) == reference.everyDay.map(\.bitPattern), "targets \(targets), day \(day), minute \(minute)")
                #expect(ours.calendar.map(\.bitPattern) == reference.calendar.map(\.bitPattern), "targets \(targets), day \(day), minute \(minute)")
            }
        }
    }
}

extension HabitRateSignal {
    /// The direct formulation (as before the per-question cuts): the reference the test compares with.
    static func referenceRates(_ history: DayHistory, targets: Int, day: Int, minute: Double) -> (everyDay: [Double], calendar: [Double]) {
        guard targets > 0 else { return ([], []) }
        let flat = [Double](repeating: Foundation.log(0.05), count: targets)
        guard let firstDay = history.firstDay else { return (flat, flat) }
        let low = max(firstDay, day - HabitRateSignal.lookbackDays), high = day - 1
        guard high >= low else { return (flat, flat) }
        let dayCount = high - low + 1
        let familyCount = HabitRateSignal.families.count

        // Per past day: its cells, its evidence weight and (finer families) its recency weight.
        var cells = [Int32](repeating: 0, count: dayCount * familyCount)
        var evidence = [Double](repeating: 0, count: dayCount)
        cells.withUnsafeMutableBufferPointer { cells in
            for i in 0 ..< dayCount { HabitRateSignal.cells(of: CalendarDay(day: low + i), into: cells.baseAddress! + i * familyCount) }
        }
        for i in 0 ..< dayCount { evidence[i] = Foundation.exp2(-Double(high - (low + i)) / HabitRateSignal.evidenceHalfLifeDays) }
        var recency = [Double](repeating: 0, count: dayCount * familyCount)
        for f in HabitRateSignal.changeFamilies ..< familyCount {
            var seen = [Int](repeating: 0, count: HabitRateSignal.families[f].cells)
            for i in stride(from: dayCount - 1, through: 0, by: -1) {
                let c = Int(cells[i * familyCount + f])
                recency[i * familyCount + f] = Foundation.exp2(-Double(seen[c]) / HabitRateSignal.cellHalfLife)
                seen[c] += 1
            }
        }
        // Per past day: which stretch of the recent past it is in (0 oldest, `changeAges.count` the newest), for
        // the change points.
        var bin = [Int](repeating: 0, count: dayCount)
        for i in 0 ..< dayCount {
            let age = high - (low + i)
            bin[i] = HabitRateSignal.changeAges.firstIndex { age >= $0 } ?? HabitRateSignal.changeAges.count
        }

        // Per past day with uses: y of each target used in the coming hour, and the targets used before the minute.
        // And for the flat rate: each target's uses (evidence weights) and every use within the window around the minute.
        var soon: [[(target: Int, y: Double)]] = Array(repeating: [], count: dayCount)
        var earlier = [Set<Int>](repeating: [], count: dayCount)
        var active = Set<Int>()
        var useWeight = [Double](repeating: 0, count: targets)
        var around = 0.0
        let aroundLow = max(0, minute - HabitRateSignal.activityBefore), aroundHigh = min(1440, minute + HabitRateSignal.activityAfter)
        let end = minute + HabitRateSignal.horizon
        var position = history.days.firstIndex { Int($0) >= low } ?? history.days.count
        while position < history.days.count, Int(history.days[position]) <= high {
            let i = Int(history.days[position]) - low
            var best: [Int: Double] = [:]
            for u in history.uses(ofDayAt: position) {
                let t = Int(history.targets[u])
                guard t < targets else { continue }
                let m = Double(history.minutes[u])
                useWeight[t] += evidence[i]
                if m >= aroundLow, m < aroundHigh { around += evidence[i] }
                if m < minute {
                    earlier[i].insert(t)
                } else if m < end {
                    let y = Foundation.exp2(-(m - minute) / HabitRateSignal.soonHalfLife)
                    if y > best[t] ?? 0 { best[t] = y }
                }
            }
            soon[i] = best.map { ($0.key, $0.value) }
            active.formUnion(best.keys)
            position += 1
        }
        var today = Set<Int>()
        if let at = history.dayPosition(day) {
            for u in history.uses(ofDayAt: at) where Double(history.minutes[u]) < minute {
                today.insert(Int(history.targets[u]))
            }
        }
        let todayCells = UnsafeMutablePointer<Int32>.allocate(capacity: familyCount)
        defer { todayCells.deallocate() }
        HabitRateSignal.cells(of: CalendarDay(day: day), into: todayCells)

        var evidenceTotal = 0.0
        for i in 0 ..< dayCount { evidenceTotal += evidence[i] }
        let useTotal = useWeight.reduce(0, +)
        let aroundRate = around / max(evidenceTotal, 1e-300) * HabitRateSignal.horizon / max(aroundHigh - aroundLow, 1) * HabitRateSignal.meanSoonWeight
        let inactive = Foundation.log(max(HabitRateSignal.floorRate, 0.05 / (evidenceTotal + 1)))
        var result = [Double](repeating: inactive, count: targets)
        var everyDay = result
        let maxCells = HabitRateSignal.families.map(\.cells).max()! * 2
        let bins = HabitRateSignal.changeAges.count + 1
        var sums = [Double](repeating: 0, count: maxCells * bins * 2)  // (S, N) per cell x a x stretch, evidence weights
        var logPosterior = [Double](repeating: 0, count: familyCount)
        var estimate = [Double](repeating: 0, count: familyCount)
        var hypothesisWeight = [Double](repeating: 0, count: bins)  // per change point of a coarse family: log posterior
        var hypothesisRate = [Double](repeating: 0, count: bins)    // and today's rate under it
        var y = [Double](repeating: 0, count: dayCount)
        var a = [Int](repeating: 0, count: dayCount)
        for t in active.sorted() {
            for i in 0 ..< dayCount {
                y[i] = 0
                a[i] = earlier[i].contains(t) ? 1 : 0
            }
            for i in 0 ..< dayCount { for (target, value) in soon[i] where target == t { y[i] = value } }
            let aToday = today.contains(t) ? 1 : 0
            // The every-day rates (evidence weights) that every family's cells shrink toward, per a.
            var total = (s: 0.0, n: 0.0)
            var byA = [(s: 0.0, n: 0.0), (s: 0.0, n: 0.0)]
            for i in 0 ..< dayCount {
                total.s += evidence[i] * y[i]
                total.n += evidence[i]
                byA[a[i]].s += evidence[i] * y[i]
                byA[a[i]].n += evidence[i]
            }
            let overall = (total.s + 0.05) / (total.n + 1)
            let base = byA.map { min(max((($0.s + overall) / ($0.n + 1)), 1e-6), 1 - 1e-6) }
            for f in 0 ..< familyCount {
                let cellCount = HabitRateSignal.families[f].cells
                // Change points only where a habit moves (every day, weekday/weekend, weekday); a finer
                // family's cell holds few days of a recent stretch, and its estimate weighs each day by
                // its recency among the days of its cell instead.
                let coarse = f < HabitRateSignal.changeFamilies
                let stretches = coarse ? bins : 1
                let todayA = Int(todayCells[f]) * 2 + aToday
                for k in 0 ..< cellCount * 2 * stretches * 2 { sums[k] = 0 }
                var recent = (s: 0.0, n: 0.0)  // today's cell and a, recency weights (finer HabitRateSignal.families)
                for i in 0 ..< dayCount {
                    let cellA = Int(cells[i * familyCount + f]) * 2 + a[i]
                    let slot = (cellA * stretches + (coarse ? bin[i] : 0)) * 2
                    sums[slot] += evidence[i] * y[i]
                    sums[slot + 1] += evidence[i]
                    if !coarse, cellA == todayA {
                        let r = recency[i * familyCount + f]
                        recent.s += r * y[i]
                        recent.n += r
                    }
                }
                /// Log marginal likelihood of every cell's days when the stretches from `split` on have a rate
                /// of their own (`split == stretches`: one rate for all).
                func logLikelihood(split: Int) -> Double {
                    var total = 0.0
                    for cellA in 0 ..< cellCount * 2 {
                        let p = base[cellA % 2]
                        let alpha = HabitRateSignal.strength * p, beta = HabitRateSignal.strength * (1 - p)
                        var before = (s: 0.0, n: 0.0), after = (s: 0.0, n: 0.0)
                        for b in 0 ..< stretches {
                            let slot = (cellA * stretches + b) * 2
                            if b < split { before.s += sums[slot]; before.n += sums[slot + 1] } else { after.s += sums[slot]; after.n += sums[slot + 1] }
                        }
                        let prior = HabitRateSignal.logBeta(alpha, beta)
                        if before.n > 0 { total += HabitRateSignal.logBeta(before.s + alpha, before.n - before.s + beta) - prior }
                        if after.n > 0 { total += HabitRateSignal.logBeta(after.s + alpha, after.n - after.s + beta) - prior }
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
                    return (part.s + HabitRateSignal.strength * base[aToday]) / (part.n + HabitRateSignal.strength)
                }
                // The family is compared with the others by its no-change fit, so change points do not make a
                // coarse family outbid a calendar one.
                let noChange = logLikelihood(split: stretches)
                logPosterior[f] = Foundation.log(HabitRateSignal.families[f].prior) + noChange
                guard coarse else {
                    estimate[f] = (recent.s + HabitRateSignal.strength * base[aToday]) / (recent.n + HabitRateSignal.strength)
                    continue
                }
                // Its estimate averages no change and a change at each point (the stretches after it with
                // their own rate) by their posterior.
                // (split 0 is no change: every stretch in one rate.)
                for split in 0 ..< stretches {
                    hypothesisWeight[split] = split == 0 ? Foundation.log(HabitRateSignal.noChangePrior) + noChange
                        : Foundation.log((1 - HabitRateSignal.noChangePrior) / Double(stretches - 1)) + logLikelihood(split: split)
                    hypothesisRate[split] = rate(from: split)
                }
                estimate[f] = HabitRateSignal.posteriorMean(logWeights: hypothesisWeight, values: hypothesisRate, count: stretches)
            }
            let mean = HabitRateSignal.posteriorMean(logWeights: logPosterior, values: estimate, count: familyCount)
            var pFlat = 0.0, flat = 0.0
            if useWeight[t] >= HabitRateSignal.flatMinimumUses, useTotal > 0 {
                // The flat rate (the target's share of the uses times the rate around now) against the families' mixture.
                flat = min(max(useWeight[t] / useTotal * aroundRate, 1e-6), 1 - 1e-6)
                let s = min(total.s, total.n)
                let top = logPosterior.max()!
                let timed = Foundation.log(1 - HabitRateSignal.flatPrior) + (top + Foundation.log(logPosterior.reduce(0.0) { $0 + Foundation.exp($1 - top) }))
                let untimed = Foundation.log(HabitRateSignal.flatPrior) + s * Foundation.log(flat) + (total.n - s) * Foundation.log(1 - flat)
                pFlat = 1 / (1 + Foundation.exp(timed - untimed))
            }
            everyDay[t] = Foundation.log(max(pFlat > 0 ? pFlat * flat + (1 - pFlat) * estimate[0] : estimate[0], HabitRateSignal.floorRate))
            result[t] = Foundation.log(max(pFlat > 0 ? pFlat * flat + (1 - pFlat) * mean : mean, HabitRateSignal.floorRate))
        }
        return (everyDay, result)
    }
}
