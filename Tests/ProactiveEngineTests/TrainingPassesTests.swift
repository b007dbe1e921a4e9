import Foundation
import ProactiveCore
import ProactiveModels
@testable import ProactiveEngine
@testable import ProactiveStore
import Testing

/// `train` holds every user's training between its two passes without their donations
/// (`Engine.UserTraining.releasingDonations()`); the fit reads them again.
@Suite("Training in two passes")
struct TrainingPassesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func blend(_ live: LiveModel) throws -> BlendModel { try #require(live.model as? BlendModel) }

    @Test func releasedDonationsAreReadAgainAndFitTheSame() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        let log = simulatedLog(users: 3, days: 14)
        try SQLiteDonationStore(database: engine.database).append(log, duplicates: .fail)
        let users = Set(log.map(\.user)).sorted()
        var kept = try users.map { try engine.prepareTraining(user: $0) }
        var released = kept.map { $0.releasingDonations() }
        #expect(kept.allSatisfy { $0.donations != nil } && released.allSatisfy { $0.donations == nil })
        let prior = Engine.population(of: &kept)
        #expect(Engine.population(of: &released) == prior && !prior.isFixed)
        let moment = Moment(date: log.last!.date.addingTimeInterval(3600), utcOffset: 0)
        for (whole, light) in zip(kept, released) {
            let expected = try engine.fit(whole, prior: prior, now: Self.now)
            let fitted = try engine.fit(light, prior: prior, now: Self.now)
            #expect(fitted.key == expected.key)
            #expect(try Self.blend(fitted).weights == Self.blend(expected).weights)
            #expect(try Self.blend(fitted).weightGuard == Self.blend(expected).weightGuard)
            #expect(fitted.model.distribution(at: moment).probabilities == expected.model.distribution(at: moment).probabilities)
        }
    }

    @Test func aDonationBetweenThePassesIsLearnedToo() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        let log = simulatedLog(users: 2, days: 14)
        let user = log[0].user
        let late = log.last(where: { $0.user == user })!
        try SQLiteDonationStore(database: engine.database).append(log.filter { $0 != late }, duplicates: .fail)
        var trainings = try Set(log.map(\.user)).sorted().map { try engine.prepareTraining(user: $0).releasingDonations() }
        let prior = Engine.population(of: &trainings)
        try engine.donate(late)
        let training = try #require(trainings.first { $0.user == user })
        let fitted = try engine.fit(training, prior: prior, now: Self.now)
        #expect(fitted.key.donationCount == training.donationCount + 1 && fitted.key.highWater > training.highWater)
        #expect(fitted.catalogue.targets.count > 0)
    }
}
