import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - Warnings

/// A parameter whose values make donations unrepeatable.
public struct LintWarning: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// Values are dates or times (typed `date`, ISO 8601 text, or Unix-epoch numbers).
        case timestampLike = "timestamp"
        /// Almost every donation carries a value never seen before.
        case neverRepeats = "never repeats"
    }

    public var app: String
    public var intent: String
    public var parameter: String
    public var kind: Kind
    public var distinctValues: Int
    public var donations: Int
    /// The parameter is in the supported combination that decides targets, so
    /// every new value is a new target (no pattern can be learned).
    public var decidesTargets: Bool

    public var description: String {
        let what = kind == .timestampLike ? "behaves like a timestamp" : "never repeats"
        var text = "\(app) \(intent): parameter \"\(parameter)\" \(what) (\(distinctValues) distinct values in \(donations) donations)"
        if decidesTargets {
            text += "; it is part of the supported combination, so every donation becomes a new target and no pattern is learned"
            text += " (remove it from the combination, or donate it as context)"
        }
        return text
    }
}

// MARK: - Lint

/// Finds donation parameters that behave like timestamps or never repeat (docs/DOMAIN.md §1:
/// donations should be repeatable and carry no timestamps in the payload).
///
/// ```swift
/// for warning in DonationLint().check(donations, definitions: definitions) { print(warning) }
/// // com.example.coffee OrderCoffeeIntent: parameter "date" behaves like a timestamp (14 distinct values in 14 donations); ...
/// ```
/// A pure function of its inputs. - Complexity: O(donations x parameters).
public struct DonationLint: Sendable {
    /// Intents with fewer donations are not judged.
    public var minimumDonations: Int
    /// "Never repeats" when distinct values / donations reaches this share.
    public var uniqueShare: Double

    public init(minimumDonations: Int = 5, uniqueShare: Double = 0.9) {
        self.minimumDonations = minimumDonations
        self.uniqueShare = uniqueShare
    }

    /// What one intent's donations showed.
    private struct Tally {
        var donations = 0
        var values: [String: Set<String>] = [:]
        var timestampLike: [String: Int] = [:]
        var seen: [String: Int] = [:]
    }

    public func check<S: Sequence>(_ donations: S, definitions: IntentDefinitionSet) -> [LintWarning] where S.Element == Donation {
        let resolver = TargetResolver(definitions: definitions)
        var tallies: [String: [String: Tally]] = [:]
        var deciding: [String: [String: Set<String>]] = [:]
        for donation in donations {
            let target = resolver.target(for: donation)
            var tally = tallies[donation.app]?[target.intent] ?? Tally()
            tally.donations += 1
            let definition = definitions.definition(app: donation.app, intent: donation.intent)
            for (name, value) in donation.parameters {
                tally.values[name, default: []].insert(value.keyText)
                tally.seen[name, default: 0] += 1
                let typedAsDate = definition?.parameter(named: name)?.type == .date
                if typedAsDate || Self.looksLikeTimestamp(value) { tally.timestampLike[name, default: 0] += 1 }
            }
            tallies[donation.app, default: [:]][target.intent] = tally
            deciding[donation.app, default: [:]][target.intent, default: []].formUnion(target.parameters.keys)
        }
        var warnings: [LintWarning] = []
        for app in tallies.keys.sorted() {
            for intent in tallies[app]!.keys.sorted() {
                let tally = tallies[app]![intent]!
                guard tally.donations >= minimumDonations else { continue }
                for parameter in tally.values.keys.sorted() {
                    let seen = tally.seen[parameter] ?? 0
                    guard seen >= minimumDonations else { continue }
                    let distinct = tally.values[parameter]!.count
                    let kind: LintWarning.Kind?
                    if Double(tally.timestampLike[parameter] ?? 0) >= 0.8 * Double(seen) {
                        kind = .timestampLike
                    } else if Double(distinct) >= uniqueShare * Double(seen) {
                        kind = .neverRepeats
                    } else {
                        kind = nil
                    }
                    guard let kind else { continue }
                    warnings.append(LintWarning(app: app, intent: intent, parameter: parameter, kind: kind, distinctValues: distinct,
                                                donations: seen, decidesTargets: deciding[app]?[intent]?.contains(parameter) ?? false))
                }
            }
        }
        return warnings
    }

    /// ISO 8601 dates or date-times as text, or numbers in the range of Unix
    /// seconds or milliseconds between 2001 and 2100.
    public static func looksLikeTimestamp(_ value: ParameterValue) -> Bool {
        switch value {
        case let .string(text):
            if (try? Timestamp.parse(text)) != nil { return true }
            return text.utf8.count >= 10 && isCalendarDate(text.utf8.prefix(10))
        case let .int(number): return isEpoch(Double(number))
        case let .double(number): return isEpoch(number)
        case .bool, .entity: return false
        }
    }

    static func isEpoch(_ number: Double) -> Bool {
        (978_307_200 ... 4_102_444_800).contains(number) || (978_307_200_000 ... 4_102_444_800_000).contains(number)
    }

    /// "YYYY-MM-DD" at the start of a text.
    static func isCalendarDate(_ bytes: Substring.UTF8View.SubSequence) -> Bool {
        let digits = bytes.enumerated().allSatisfy { position, byte in
            position == 4 || position == 7 ? byte == UInt8(ascii: "-") : (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(byte)
        }
        return digits
    }
}
