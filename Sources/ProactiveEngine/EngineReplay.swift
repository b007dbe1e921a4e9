import Foundation
import ProactiveCore
import ProactiveModels
import ProactiveStore

// MARK: - The evaluation contract through the engine

/// Walks a test log through the engine as an app would: for each test
/// donation, the user's live model ranks targets at the donation's date and
/// context, then the donation is donated and the model learns it. The ranks
/// are those of an online evaluation (`EvaluationOptions(online: true)`) on the
/// same split, as the engine's state is the online model.
public enum EngineReplay {
    /// - Parameters:
    ///   - storePath: a new store file to replay in (created; must not exist).
    ///   - timeZone: read every donation's clock in this zone (an IANA identifier).
    ///   - progress: called with (done, total) every 1,000 test donations and at the end.
    /// - Returns: the 1-based rank of each test donation's target (0 = not ranked), in log order.
    public static func ranks(train: [Donation], test: [Donation], storePath: String, definitions: [IntentDefinition] = [],
                             model: String = ModelChoice.defaultName, timeZone: String? = nil,
                             progress: (Int, Int) -> Void = { _, _ in }) throws -> [Int] {
        guard !FileManager.default.fileExists(atPath: storePath) else {
            throw EngineError(.invalidRequest, "\(storePath) exists; the replay needs a new store file")
        }
        let storage = try SQLiteBackend(path: storePath)
        try storage.privacy.setRetention(.keepAll)
        if !definitions.isEmpty {
            try storage.definitions.replace(with: definitions, apps: Set(definitions.map(\.app)))
        }
        let engine = Engine(storage: storage)
        let choice = ModelChoice(name: model, timeZoneOverride: timeZone)
        // Every line is its own donation, as in the log (identical lines are not merged).
        func identified(_ donation: Donation, _ index: Int, _ log: String) -> Donation {
            var copy = donation
            if copy.identifier == nil { copy.identifier = "replay-\(log)-\(index)" }
            return copy
        }
        _ = try storage.donations.append(train.enumerated().map { identified($1, $0, "train") }, duplicates: .skip)
        let resolver = TargetResolver(definitions: try engine.definitions())
        var models: [String: LiveModel] = [:]
        for user in Set(train.map(\.user)).sorted() { models[user] = try engine.train(user: user, choice) }
        var ranks: [Int] = []
        ranks.reserveCapacity(test.count)
        for (index, donation) in test.enumerated() {
            let target = resolver.target(for: donation).key
            if var live = models[donation.user] {
                let moment = try engine.moment(for: live, at: donation.date, utcOffset: donation.utcOffset, context: donation.context)
                let distribution = live.model.distribution(at: moment)
                ranks.append(distribution.index(of: target) == nil ? 0
                             : distribution.ranked().firstIndex { $0.target == target }.map { $0 + 1 } ?? 0)
                try engine.donate(identified(donation, index, "test"))
                try engine.refresh(&live)
                models[donation.user] = live
            } else {
                ranks.append(0)  // a user the training log never saw: no model yet
                try engine.donate(identified(donation, index, "test"))
            }
            if (index + 1) % 1000 == 0 || index + 1 == test.count { progress(index + 1, test.count) }
        }
        return ranks
    }
}
