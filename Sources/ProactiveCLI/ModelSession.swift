import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveModels
import ProactiveStore

// MARK: - Options shared by train and predict

/// `--model`, `--definitions` and `--timezone` for the commands that fit or read saved models.
struct ModelOptions: ParsableArguments {
    @Option(help: "The model: \(SavableModels.names.joined(separator: ", ")).")
    var model: String = SavableModels.defaultName

    @Option(help: "Intent definitions (JSON) overlaying the stored ones.")
    var definitions: String?

    @Option(name: .customLong("timezone"), help: "Read the users' clocks in this IANA zone instead of their configured ones.")
    var timeZoneName: String?

    func validate() throws {
        guard SavableModels.names.contains(model) else {
            throw ValidationError("--model: \"\(model)\" cannot be saved; use one of \(SavableModels.names.joined(separator: ", "))")
        }
        _ = try parseTimeZone(timeZoneName)
    }
}

// MARK: - One user's learning inputs from the store

/// What `train` and `predict` need for one user: donations (Focus-enriched,
/// read in the user's zone), targets and their summaries, and the saved model row.
struct ModelSession {
    let user: String
    let zoneName: String?
    let zone: TimeZone?
    let donations: [Donation]
    let training: TrainingSet

    /// - Parameter zoneOverride: a `--timezone` that wins over the user's configured zone.
    static func load(database: ProactiveDatabase, user: String, definitions file: String?, zoneOverride: String?) throws -> ModelSession {
        let store = SQLiteDonationStore(database: database)
        let zoneName = try zoneOverride ?? store.timeZone(forUser: user)
        let zone = try parseTimeZone(zoneName)
        let focus = FocusSession(database: database)
        let timeline = try focus.timeline().timeline
        var donations = try store.donations(forUser: user, in: .all).map(timeline.enrich)
        if let zone { donations = donations.map { var copy = $0; copy.utcOffset = zone.secondsFromGMT(for: $0.date); return copy } }
        let resolver = TargetResolver(definitions: try focus.definitions(file: file))
        return ModelSession(user: user, zoneName: zoneName, zone: zone, donations: donations,
                            training: TrainingSet(donations: donations, resolver: resolver))
    }

    var latestDonation: Date? { donations.map(\.date).max() }

    /// Fits the named savable model on all of the user's donations.
    func fit(_ name: String) throws -> any PersistentModel {
        do { return try SavableModels.fit(name, training, timeZone: zoneName) } catch {
            throw CommandFailure(description: "user \(user): the \(name) model could not be fitted: \(error)")
        }
    }

    /// The row to save for a fitted model.
    func savedModel(_ model: any PersistentModel, name: String, now: Date) -> SavedModel {
        SavedModel(user: user, name: name, bytes: model.serialized(), trainedAt: now, donationCount: donations.count,
                   latestDonation: latestDonation)
    }

    /// Whether a saved row was trained on exactly the donations there are now.
    func isCurrent(_ saved: SavedModel) -> Bool {
        saved.donationCount == donations.count && saved.latestDonation.map(Self.milliseconds) == latestDonation.map(Self.milliseconds)
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// A target's human summary ("Order a large iced latte"), or its key.
    func summary(of target: TargetKey) -> String { training.targets[target]?.summary ?? target.rawValue }
}
