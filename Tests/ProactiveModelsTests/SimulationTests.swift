import Foundation
import ProactiveCore
@testable import ProactiveLab
@testable import ProactiveModels
import Testing

@Suite("Routine simulator")
struct SimulationTests {
    static let configuration = SimulationConfiguration(users: 8, days: 42, seed: 11)

    @Test func theSameSeedGivesTheSameLog() {
        let first = Simulation(Self.configuration).donations()
        #expect(first == Simulation(Self.configuration).donations())
        var other = Self.configuration
        other.seed = 12
        #expect(first != Simulation(other).donations())
        #expect(zip(first, first.dropFirst()).allSatisfy { $0.date <= $1.date })
        #expect(Set(first.map(\.user)).count == 8)
        // Lines round-trip through the interchange format.
        #expect(first.prefix(50).allSatisfy { (try? DonationLineCodec.decode(DonationLineCodec.encode($0))) == $0 })
    }

    @Test func contextIsOptional() {
        var plain = Self.configuration
        plain.context = false
        #expect(Simulation(plain).donations().allSatisfy { $0.context.isEmpty })
        #expect(Simulation(Self.configuration).donations().contains { $0.context["focus"] == "work" })
    }

    @Test func hourOfDayRecoversThePlantedMorningCheck() throws {
        let simulation = Simulation(Self.configuration)
        let clock = LocalClock()
        var hits = 0, queries = 0
        for (index, persona) in simulation.personas.enumerated() {
            let log = simulation.donations(for: persona, index: index)
            let resolver = TargetResolver()
            let cut = Self.configuration.start.addingTimeInterval(28 * 86_400)
            let model = try HourOfDayTrainer().fit(TrainingSet(donations: log.filter { $0.date < cut }, resolver: resolver))
            let weather = persona.morningDonation
            let planted = TargetKey(app: weather.app, intent: weather.intent, parameters: weather.parameters)
            // Each later morning check is ranked at its own instant.
            for donation in log where donation.date >= cut && resolver.target(for: donation).key == planted {
                let reading = clock.read(donation.date, writtenOffset: donation.utcOffset)
                guard !reading.isWeekend else { continue }
                queries += 1
                if model.scores(at: Moment(date: donation.date, utcOffset: donation.utcOffset)).first?.target == planted { hits += 1 }
            }
        }
        #expect(queries > 50)
        #expect(Double(hits) / Double(queries) > 0.9, "\(hits) of \(queries)")
    }

    @Test func theLunchHabitDriftsHalfWay() {
        let simulation = Simulation(Self.configuration)
        let persona = simulation.personas[0]
        let log = simulation.donations(for: persona, index: 0)
        let drift = Self.configuration.start.addingTimeInterval(Double(Self.configuration.driftDay) * 86_400)
        let lunches = log.filter { $0.intent == "OrderFoodIntent" && $0.parameters["item"] != .string("brunch") }
        #expect(lunches.filter { $0.date < drift }.allSatisfy { $0.parameters["item"] == .string(persona.lunchBefore) })
        #expect(lunches.filter { $0.date >= drift }.allSatisfy { $0.parameters["item"] == .string(persona.lunchAfter) })
        #expect(lunches.contains { $0.date >= drift })
    }

    @Test func hourOfDayBeatsFrequencyOnAPopulation() async {
        let split = LogSplit(Simulation(Self.configuration).donations(), method: .time, trainShare: 0.25)
        let registry = ModelRegistry.builtIn
        let hour = await Evaluation.run(train: split.train, test: split.test, model: registry.entry(named: "hour-of-day")!,
                                        options: EvaluationOptions(online: true))
        let frequency = await Evaluation.run(train: split.train, test: split.test, model: registry.entry(named: "mfu")!,
                                             options: EvaluationOptions(online: true))
        #expect(hour.metrics.hitAt1 > frequency.metrics.hitAt1 + 0.05)
        #expect(hour.metrics.mrr > frequency.metrics.mrr)
    }
}
