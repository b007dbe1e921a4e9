import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine
import ProactiveLab

// MARK: - proactive simulate

/// Writes a simulated population's donation log.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Write a simulated donation log: people with daily routines, or aggregated context rows (deterministic per seed).",
        discussion: """
            --shape sequential (the default): each user wakes and checks the weather, commutes, works in a work Focus with mail and chat, \
            orders lunch, watches something in the evening and sets an alarm; weekends differ; from the \
            drift day the lunch order and the evening app change; random app opens add noise.

            --shape aggregated: rows of context with usage counts and no order, the shape of datasets that \
            record "on this weekday, in this part of the day, at this place and weather, app A was used n \
            times". Each user has about --rows-per-user rows (drawn log-normally around it); a row is a \
            weekday, a part of the day (context daypart=night|morning|afternoon|evening), place=home|work|other, \
            weather=sunny|cloudy|rainy, an app (intent "open") and a count (the uses it stands for, heavy-tailed: \
            most 1, a few large). Apps come from a population catalogue with a Zipf popularity (shared across \
            users) plus a few private ones; each user prefers a few apps strongly; context matters mildly. Rows \
            have no order: each is dated in a random week of the --days span, on its weekday, at a random minute \
            of its part of the day (UTC), so date order carries no sequence information; a time split is a \
            random split. Plain most-frequently-used is a strong baseline on this shape (docs/RESULTS.md).

            --shape aggregated-week: aggregated rows as above, all in ONE reference week (the week of \
            2026-01-05, a Monday; --days is not used), with seven parts of the day (context \
            daypart=night 0-6 h|early-morning 6-9|morning 9-12|midday 12-14|afternoon 14-17|evening 17-21|\
            late-evening 21-24) and each row dated at the START of its part of the day, so a user's rows of one \
            weekday and part share one instant. About --apps apps (default 4000) with a Zipf popularity shared \
            by every user (--app-exponent, default 0.7); users with more rows use more apps, and apps of the \
            long tail appear in one row only (a random split leaves test rows of apps the user never used in \
            training, about a tenth). Counts are log-normal: median --count-median (default 4), the scale of an app \
            following the user's preference for it (--count-preference, default 1: the apps a user prefers fill \
            more rows and larger ones), deviation of the logarithm around it --count-spread (default 1.8; \
            counts from 1 to tens of thousands), half of it per user and app, half per row. Rows per user are log-normal around --rows-per-user (default 110) with a deviation of the \
            logarithm --rows-spread (default 1.1: a sixth of users under 20 rows). On this shape the default model \
            ranks below plain most-frequently-used, as on the real log of issue 27 (docs/RESULTS.md).

            The same --seed always writes the same file.

            Examples:
              proactive simulate --users 50 --days 60 --seed 7 -o sim.jsonl
              proactive simulate --shape aggregated --users 300 --rows-per-user 100 \\
                  --seed 7 -o rows.jsonl
              proactive simulate --shape aggregated-week --users 585 --seed 7 -o week.jsonl
            """
    )

    enum Shape: String, ExpressibleByArgument, CaseIterable {
        case sequential, aggregated
        case aggregatedWeek = "aggregated-week"
    }

    @Option(help: """
        sequential (routines, a time line of donations), aggregated (context rows with counts, no order) or \
        aggregated-week (context rows of one reference week at shared instants, thousands of apps).
        """)
    var shape: Shape = .sequential

    @Option(help: "Number of simulated users.")
    var users: Int = 10

    @Option(help: "Number of days per user (aggregated: the span the rows are dated in, whole weeks of it).")
    var days: Int = 60

    @Option(help: "Aggregated: mean rows per user (default 100; each user has at least 5). Aggregated-week: default 110, at least 2.")
    var rowsPerUser: Double?

    @Option(help: "Aggregated-week: deviation of the logarithm of rows per user (default 1.1).")
    var rowsSpread: Double?

    @Option(help: "Aggregated-week: apps in the population catalogue (default 4000).")
    var apps: Int?

    @Option(help: "Aggregated-week: exponent of the catalogue's Zipf popularity (default 0.7).")
    var appExponent: Double?

    @Option(help: "Aggregated-week: median count of a row (default 4).")
    var countMedian: Double?

    @Option(help: "Aggregated-week: deviation of the logarithm of a row's count around its app's scale (default 1.8).")
    var countSpread: Double?

    @Option(help: "Aggregated-week: how much an app's count scale follows the user's preference for it (default 1, 0: not at all).")
    var countPreference: Double?

    @Option(help: "Random seed.")
    var seed: UInt64 = 1

    @Option(help: "Sequential: day on which habits change (default: half way).")
    var driftDay: Int?

    @Option(help: "Sequential: mean random app opens per day (default 3).")
    var noise: Double?

    @Flag(help: "Sequential: leave out focus and place context.")
    var noContext = false

    @Option(name: [.short, .customLong("output")], help: "Where to write the JSON Lines (- for standard output).")
    var output: String

    func validate() throws {
        guard users >= 1 else { throw ValidationError("--users must be at least 1") }
        guard days >= 1 else { throw ValidationError("--days must be at least 1") }
        if let noise, !(noise >= 0 && noise.isFinite) { throw ValidationError("--noise must be >= 0") }
        if let driftDay, driftDay < 0 { throw ValidationError("--drift-day must be >= 0") }
        let weekOptions = rowsSpread != nil || apps != nil || appExponent != nil || countMedian != nil || countSpread != nil
            || countPreference != nil
        if shape != .aggregatedWeek, weekOptions {
            throw ValidationError("--rows-spread, --apps, --app-exponent, --count-median, --count-spread and --count-preference are for --shape aggregated-week")
        }
        switch shape {
        case .sequential:
            if rowsPerUser != nil { throw ValidationError("--rows-per-user is for --shape aggregated or aggregated-week") }
        case .aggregatedWeek:
            if let rowsPerUser, !(rowsPerUser >= 2 && rowsPerUser <= 1_000_000) {
                throw ValidationError("--rows-per-user must be between 2 and 1000000")
            }
            if let apps, !(apps >= 1 && apps <= 1_000_000) { throw ValidationError("--apps must be between 1 and 1000000") }
            for (name, value) in [("--rows-spread", rowsSpread), ("--app-exponent", appExponent), ("--count-spread", countSpread),
                                  ("--count-preference", countPreference)] {
                if let value, !(0...5).contains(value) { throw ValidationError("\(name) must be between 0 and 5") }
            }
            if let countMedian, !(countMedian >= 1 && countMedian <= 1_000_000) {
                throw ValidationError("--count-median must be between 1 and 1000000")
            }
            if driftDay != nil || noise != nil || noContext {
                throw ValidationError("--drift-day, --noise and --no-context are for --shape sequential")
            }
        case .aggregated:
            if let rowsPerUser, !(rowsPerUser >= 1 && rowsPerUser <= 1_000_000) {
                throw ValidationError("--rows-per-user must be between 1 and 1000000")
            }
            guard days >= 7 else { throw ValidationError("--days must be at least 7 with --shape aggregated (rows are dated in whole weeks)") }
            if driftDay != nil || noise != nil || noContext {
                throw ValidationError("--drift-day, --noise and --no-context are for --shape sequential")
            }
        }
    }

    func run() throws {
        let donations: [Donation]
        switch shape {
        case .sequential:
            donations = Simulation(SimulationConfiguration(users: users, days: days, seed: seed, driftDay: driftDay,
                                                           noisePerDay: noise ?? 3, context: !noContext)).donations()
        case .aggregated:
            donations = AggregatedSimulation(AggregatedSimulationConfiguration(
                users: users, rowsPerUser: rowsPerUser ?? 100, seed: seed, days: days)).donations()
        case .aggregatedWeek:
            var configuration = AggregatedWeekConfiguration(users: users, seed: seed)
            configuration.rowsPerUser = rowsPerUser ?? configuration.rowsPerUser
            configuration.rowsSpread = rowsSpread ?? configuration.rowsSpread
            configuration.catalogueSize = apps ?? configuration.catalogueSize
            configuration.catalogueExponent = appExponent ?? configuration.catalogueExponent
            configuration.countMedian = countMedian ?? configuration.countMedian
            configuration.countSpread = countSpread ?? configuration.countSpread
            configuration.countPreference = countPreference ?? configuration.countPreference
            donations = AggregatedWeekSimulation(configuration).donations()
        }
        let writer = try openLogWriter(output)
        let clock = ContinuousClock()
        let started = clock.now
        let terminal = Output.standardErrorIsTerminal
        for (index, donation) in donations.enumerated() {
            try writer.write(donation)
            if terminal, (index + 1) % 10_000 == 0 || index + 1 == donations.count {
                ImportProgressPrinter.writeError("\rwriting \(index + 1)/\(donations.count) donations"
                    + ProgressPrinter.rateAndTimeLeft(done: index + 1, total: donations.count, seconds: EvaluateCommand.seconds(clock.now - started))
                    + (index + 1 == donations.count ? "\n" : "   "))
            }
        }
        try writer.close()
        let uses = shape == .sequential ? "" : " (\(donations.reduce(0) { $0 + $1.count }) uses)"
        let span = shape == .aggregatedWeek ? "one week" : "\(days) days"
        printError("simulated \(users) user\(users == 1 ? "" : "s") over \(span) (seed \(seed), \(shape.rawValue)): "
                   + "\(writer.written) donations\(uses) -> \(output)")
    }
}
