import Foundation
import ProactiveCore
import ProactiveRanking

// MARK: - What ranking knows about each target

/// Per target: how to show it (`Target`: app, intent, parameters, summary),
/// how much it was used, and the criteria all its donations agree on (for
/// Focus filters, see `TargetCriteria`). Kept beside the model state and
/// updated with every learned donation, so a query never reads the history.
///
/// Adding is incremental. A removal keeps counts exact but cannot restore an
/// agreement a removed donation had broken; `needsRebuild` then says the
/// catalogue should be rebuilt from the remaining donations (the engine does
/// so on the deleting path).
struct TargetCatalogue: Sendable {
    struct Entry: Sendable {
        /// A donation of the target (the first learned): re-resolved to a `Target` when read.
        var representative: Donation
        var target: Target
        var donations: Int
        var uses: Double
        /// Parameter outside the key -> the value every donation gives (nil: they disagree).
        var agreed: [String: String?]
    }

    private(set) var entries: [TargetKey: Entry] = [:] {
        didSet { derived = nil }
    }
    private(set) var needsRebuild = false
    /// `targets`, `uses` and `criteria` computed once by `settle()` (a held model's are asked for
    /// on every question); dropped by any change to `entries`.
    private var derived: (targets: [TargetKey: Target], uses: [TargetKey: Double], criteria: TargetCriteria)?

    init() {}

    /// - Parameter donations: prepared donations (Focus-enriched, in the user's zone).
    init(donations: [Donation], resolver: TargetResolver) {
        for donation in donations { add(donation, resolver: resolver) }
    }

    mutating func add(_ donation: Donation, resolver: TargetResolver) {
        let target = resolver.target(for: donation)
        if var entry = entries[target.key] {
            entry.donations += 1
            entry.uses += Double(donation.count)
            for (name, known) in entry.agreed where known != nil && donation.parameters[name]?.keyText != known {
                entry.agreed[name] = .some(nil)
            }
            entries[target.key] = entry
        } else {
            var agreed: [String: String?] = [:]
            for (name, value) in donation.parameters where target.parameters[name] == nil { agreed[name] = .some(value.keyText) }
            entries[target.key] = Entry(representative: donation, target: target, donations: 1, uses: Double(donation.count), agreed: agreed)
        }
    }

    mutating func remove(_ donation: Donation, resolver: TargetResolver) {
        let key = resolver.target(for: donation).key
        guard var entry = entries[key] else { return }
        entry.donations -= 1
        entry.uses -= Double(donation.count)
        if entry.donations <= 0 {
            entries[key] = nil
            return
        }
        // An agreement this donation took part in may now hold again, or its representative is gone.
        if entry.agreed.values.contains(where: { $0 == nil }) || entry.representative == donation { needsRebuild = true }
        entries[key] = entry
    }

    var targets: [TargetKey: Target] { derived?.targets ?? entries.mapValues(\.target) }
    var uses: [TargetKey: Double] { derived?.uses ?? entries.mapValues(\.uses) }
    var criteria: TargetCriteria { derived?.criteria ?? computedCriteria }

    private var computedCriteria: TargetCriteria {
        TargetCriteria(agreed: entries.compactMapValues { entry in
            let values = entry.agreed.compactMapValues { $0 }
            return values.isEmpty ? nil : values
        })
    }

    /// Computes `targets`, `uses` and `criteria` once, for a model that is about to be asked many questions.
    mutating func settle() {
        guard derived == nil else { return }
        derived = (entries.mapValues(\.target), entries.mapValues(\.uses), computedCriteria)
    }

    // MARK: Coding (one JSON line per target, sorted by key)

    func encoded() -> String {
        entries.keys.sorted().map { key in
            let entry = entries[key]!
            let agreed = entry.agreed.keys.sorted().map { name in (name, entry.agreed[name]!.map(JSONValue.string) ?? .null) }
            return JSONWriter.string(.object([
                ("donation", .string(DonationLineCodec.encode(entry.representative))),
                ("donations", .number(Double(entry.donations), integer: Int64(entry.donations))),
                ("uses", .number(entry.uses, integer: nil)),
                ("agreed", .object(agreed)),
            ]))
        }.joined(separator: "\n")
    }

    init(decoding text: String, resolver: TargetResolver) throws {
        for (index, line) in text.split(separator: "\n").enumerated() {
            func bad(_ reason: String) -> EngineError {
                EngineError(.unreadableStoredData, "target catalogue line \(index + 1): \(reason)")
            }
            let json = try JSONParser.parse(String(line))
            guard case let .string(text)? = json["donation"], case let .number(count, _)? = json["donations"],
                  case let .number(uses, _)? = json["uses"], case let .object(members)? = json["agreed"]
            else { throw bad("missing or mistyped field") }
            let donation = try DonationLineCodec.decode(text)
            let target = resolver.target(for: donation)
            var agreed: [String: String?] = [:]
            for (name, value) in members {
                switch value {
                case let .string(text): agreed[name] = .some(text)
                case .null: agreed[name] = .some(nil)
                default: throw bad("agreed.\(name) is \(value.kindName)")
                }
            }
            entries[target.key] = Entry(representative: donation, target: target, donations: Int(count), uses: uses, agreed: agreed)
        }
    }
}
