import Foundation
import ProactiveCore
import ProactiveModels
import ProactiveRanking
import ProactiveStore

// MARK: - What a user's model is learned under

/// Everything besides the donations that decides what a user's model
/// learns: the intent definitions (which donations are the same target),
/// the Focus timeline (donations without a Focus get the one on at their
/// date), the user's clock and the model choice. Its digests form the part of
/// a state's key that forces a refit when it changes.
struct UserInputs: Sendable {
    let user: String
    let choice: ModelChoice
    /// The zone the user's clock is read in (the override, else the configured zone), if any.
    let zoneName: String?
    let zone: TimeZone?
    let resolver: TargetResolver
    let timeline: FocusTimeline
    let definitionsDigest: String
    let focusDigest: String

    /// `blend zone=America/Los_Angeles`: the options part of a state key.
    var options: String { "\(choice.name) zone=\(zoneName ?? "offsets")" }

    /// The donation as the model learns it: Focus filled from the timeline, offset read in the user's zone.
    func prepare(_ donation: Donation) -> Donation {
        var copy = timeline.enrich(donation)
        if let zone { copy.utcOffset = zone.secondsFromGMT(for: donation.date) }
        return copy
    }

    /// A prepared donation as a learning event.
    func event(_ prepared: Donation) -> Event {
        Event(target: resolver.target(for: prepared).key, date: prepared.date, utcOffset: prepared.utcOffset,
              context: prepared.context, weight: Double(prepared.count))
    }

    /// The state key for these inputs at the given marks.
    func key(highWater: Int64, erasureMark: Int64, donationCount: Int) -> ModelStateKey {
        ModelStateKey(highWater: highWater, erasureMark: erasureMark, donationCount: donationCount,
                      definitionsDigest: definitionsDigest, focusDigest: focusDigest, options: options)
    }
}

/// A short stable digest of a text (FNV-1a 64, hex).
func digest(_ text: String) -> String {
    let hash = FNV1a64.hash(Array(text.utf8))
    let hex = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
}
