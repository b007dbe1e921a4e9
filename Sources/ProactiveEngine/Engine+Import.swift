import Foundation
import ProactiveCore
import ProactiveStore

// MARK: - Importing donation logs

/// An import begun by `Engine.beginImport`: recording was checked, users' zones set and retention
/// applied; `importer` stores files as the acting party, and `finish` brings the saved models along.
public struct DonationImport {
    /// Reads logs (JSON Lines, device databases) into the store, skipping what the retention window no longer keeps.
    public let importer: DonationImporter
    /// What is too old to store, as of `now`.
    public let retention: ImportRetention
    /// What applying retention before the import erased.
    public let erased: RetentionReport
    public let now: Date
    let engine: Engine

    /// What to do with saved models once the donations are stored.
    public enum ModelPolicy: String, Sendable, CaseIterable {
        /// Fold the new donations into every saved model they leave behind, at most
        /// `Engine.maxFoldedPerImport` per model (`Engine.updateSavedModels`); never refits.
        case update
        /// Leave that to each user's next query.
        case `defer`
    }

    /// Applies `policy` after `imported` donations were stored.
    /// - Returns: what updating the saved models did, or nil when nothing was imported or `policy` defers.
    /// - Throws: store failures.
    public func finish(imported: Int, models policy: ModelPolicy) throws -> Engine.SavedModelsUpdate? {
        guard policy == .update, imported > 0 else { return nil }
        return try engine.updateSavedModels(maxPending: Engine.maxFoldedPerImport, now: now)
    }
}

extension Engine {
    /// Above this many new donations for one saved model, an import leaves it to the next query
    /// (folding them in would run every scheduled refit on the way).
    public static let maxFoldedPerImport = 1_000

    /// Begins an import at `now`: refuses while recording is paused, sets the users' zones, erases
    /// what has aged past its retention window, and returns the importer over the acting party's
    /// donations with the same `now` (so nothing is stored that retention would erase at once).
    /// - Parameters:
    ///   - timeZones: (user, IANA zone) pairs to set before storing.
    ///   - resume: how the caller resumes recording, for the paused message (`requireRecording`).
    /// - Throws: `StoreError(.recordingPaused)`; `StoreError(.accessDenied)`; store failures. Nothing is stored then.
    ///
    /// ```swift
    /// let run = try engine.beginImport(strict: false, batchSize: 1_000)
    /// let summary = try run.importer.importJSONLines(path: "donations.jsonl")
    /// _ = try run.finish(imported: summary.imported, models: .update)
    /// ```
    public func beginImport(timeZones: [(user: String, zone: String)] = [], strict: Bool, batchSize: Int, now: Date = Date(),
                            resume: String = "resume recording", onProgress: ((ImportProgress) -> Void)? = nil) throws -> DonationImport {
        try requireRecording(resume: resume)
        for setting in timeZones { try scopedDonations.setTimeZone(setting.zone, forUser: setting.user) }
        let erased = try applyRetention(now: now)
        let retention = ImportRetention(policy: try retentionPolicy(), now: now)
        let importer = DonationImporter(store: scopedDonations, options: ImportOptions(strict: strict, batchSize: batchSize, retention: retention),
                                        onProgress: onProgress)
        return DonationImport(importer: importer, retention: retention, erased: erased, now: now, engine: self)
    }
}
