import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveModels
import ProactiveStore

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

            The same --seed always writes the same file.

            Examples:
              proactive simulate --users 50 --days 60 --seed 7 -o sim.jsonl
              proactive simulate --shape aggregated --users 300 --rows-per-user 100 \\
                  --seed 7 -o rows.jsonl
            """
    )

    enum Shape: String, ExpressibleByArgument, CaseIterable {
        case sequential, aggregated
    }

    @Option(help: "sequential (routines, a time line of donations) or aggregated (context rows with counts, no order).")
    var shape: Shape = .sequential

    @Option(help: "Number of simulated users.")
    var users: Int = 10

    @Option(help: "Number of days per user (aggregated: the span the rows are dated in, whole weeks of it).")
    var days: Int = 60

    @Option(help: "Aggregated: mean rows per user (default 100; each user has at least 5).")
    var rowsPerUser: Double?

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
        switch shape {
        case .sequential:
            if rowsPerUser != nil { throw ValidationError("--rows-per-user is for --shape aggregated") }
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
        }
        let writer = try DonationLogWriter(path: output)
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
        let uses = shape == .aggregated ? " (\(donations.reduce(0) { $0 + $1.count }) uses)" : ""
        printError("simulated \(users) user\(users == 1 ? "" : "s") over \(days) days (seed \(seed), \(shape.rawValue)): "
                   + "\(writer.written) donations\(uses) -> \(output)")
    }
}
