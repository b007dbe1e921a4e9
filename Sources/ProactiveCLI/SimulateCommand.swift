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
        abstract: "Write the donation log of simulated people with daily routines (deterministic per seed).",
        discussion: """
            Each user wakes and checks the weather, commutes, works in a work Focus with mail and chat, \
            orders lunch, watches something in the evening and sets an alarm; weekends differ; from the \
            drift day the lunch order and the evening app change; random app opens add noise. The same \
            --seed always writes the same file.

            Example:
              proactive simulate --users 50 --days 60 --seed 7 -o sim.jsonl
            """
    )

    @Option(help: "Number of simulated users.")
    var users: Int = 10

    @Option(help: "Number of days per user.")
    var days: Int = 60

    @Option(help: "Random seed.")
    var seed: UInt64 = 1

    @Option(help: "Day on which habits change (default: half way).")
    var driftDay: Int?

    @Option(help: "Mean random app opens per day.")
    var noise: Double = 3

    @Flag(help: "Leave out focus and place context.")
    var noContext = false

    @Option(name: [.short, .customLong("output")], help: "Where to write the JSON Lines (- for standard output).")
    var output: String

    func validate() throws {
        guard users >= 1 else { throw ValidationError("--users must be at least 1") }
        guard days >= 1 else { throw ValidationError("--days must be at least 1") }
        guard noise >= 0, noise.isFinite else { throw ValidationError("--noise must be >= 0") }
        if let driftDay, driftDay < 0 { throw ValidationError("--drift-day must be >= 0") }
    }

    func run() throws {
        let simulation = Simulation(SimulationConfiguration(users: users, days: days, seed: seed, driftDay: driftDay,
                                                            noisePerDay: noise, context: !noContext))
        let writer = try DonationLogWriter(path: output)
        let donations = simulation.donations()
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
        printError("simulated \(users) user\(users == 1 ? "" : "s") over \(days) days (seed \(seed)): \(writer.written) donations -> \(output)")
    }
}
