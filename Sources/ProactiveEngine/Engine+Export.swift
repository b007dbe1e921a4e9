import Foundation
import ProactiveCore
import ProactiveModels
import ProactiveStore

// MARK: - A user's linear scorer, for peers

/// The linear part of a user's live model at a moment: `W` (targets x columns,
/// row-major) and the moment's feature vector `x`, so that `W · x` is the
/// logistic model's log-score of each target (the blend's logistic component,
/// or the logistic model itself). What a peer implementation needs to serve
/// the same scores (`proactive models export-weights`, `dev/load-serve.sh`).
public struct LinearWeights: Sendable {
    public var user: String
    /// Target keys, in row order.
    public var targets: [String]
    public var columns: Int
    public var weights: [Double]
    public var x: [Double]
}

extension Engine {
    /// The user's `W` and `x` at `date` (owner only: a model reads every app's donations).
    /// - Throws: `EngineError(.invalidRequest)` when the user's model has no logistic part
    ///   (too few donations, or another model chosen); `.noDonations`.
    public func linearWeights(user: String, at date: Date, utcOffset: Int? = nil, _ choice: ModelChoice = ModelChoice()) throws -> LinearWeights {
        try access.requireAdministrator(to: "export model weights")
        let live = try liveModel(user: user, choice)
        let logistic: LogisticModel
        if let model = live.model as? LogisticModel {
            logistic = model
        } else if let model = live.model as? BlendModel, let part = model.logistic {
            logistic = part
        } else {
            throw EngineError(.invalidRequest, "user \(user): the \(live.model.name) model has no logistic part to export")
        }
        let x = logistic.featureVector(for: try moment(for: live, at: date, utcOffset: utcOffset))
        let targets = logistic.space.targets.map(\.rawValue)
        let weights = logistic.expandedWeights
        guard weights.count == targets.count * x.count else {
            throw EngineError(.unreadableStoredData, "user \(user): \(weights.count) weights for \(targets.count) targets x \(x.count) columns")
        }
        return LinearWeights(user: user, targets: targets, columns: x.count, weights: weights, x: x)
    }
}

// MARK: - Donations back as JSON Lines

extension Engine {
    /// Writes the donations `filter` matches that the acting party may see to `path` as canonical JSON
    /// Lines (see `DonationExporter`), atomically for a regular file; `protectedPaths` (the store's own
    /// files) are refused.
    /// - Returns: how many lines were written.
    /// - Throws: `StoreError` (`.io` naming the file, `.invalidRequest` for a refused output,
    ///   `.accessDenied` for another app's donations under an app's access).
    ///
    /// ```swift
    /// let count = try engine.exportDonations(matching: DonationFilter(user: "u1"), toPath: "u1.jsonl")
    /// ```
    @discardableResult
    public func exportDonations(matching filter: DonationFilter = .everything, toPath path: String,
                                protectedPaths: [String] = []) throws -> Int {
        try DonationExporter(store: scopedDonations).export(matching: filter, toPath: path, protectedPaths: protectedPaths)
    }

    /// The lines `exportDonations(matching:toPath:)` writes, handed to `write` in blocks of whole
    /// lines (about 256 KiB each): the caller puts them on its standard output or elsewhere.
    /// - Returns: how many lines were written.
    /// - Throws: `StoreError` (a store error, `.accessDenied` as above, or `.io` with what `write` threw).
    ///
    /// ```swift
    /// try engine.exportDonations(matching: .everything) { block in print(block, terminator: "") }
    /// ```
    @discardableResult
    public func exportDonations(matching filter: DonationFilter = .everything,
                                writingBlocks write: (String) throws -> Void) throws -> Int {
        try DonationExporter(store: scopedDonations).export(matching: filter, writingBlocks: write)
    }
}
