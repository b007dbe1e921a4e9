import Foundation
import ProactiveCore

// MARK: - People and Focus

/// How strongly messages to one person go with one Focus.
///
/// With `n(p,f)` messages to person p sent in Focus f, `n(p)` all messages to p,
/// `n(f)` all messages sent in f, `N` all messages and `K` Focus buckets (every
/// Focus seen, plus "no Focus" when some messages had none), additive smoothing α:
/// ```
/// share    = (n(p,f) + α) / (n(p) + α·K)      smoothed P(f | p)
/// baseRate = (n(f)   + α) / (N    + α·K)      smoothed P(f)
/// lift     = share / baseRate                 pmi = log2(lift)
/// ```
/// Lift 1 means the person is messaged in f as often as anyone; lift 2, twice as often.
public struct PersonFocusAssociation: Sendable, Hashable {
    /// The recipient's entity id (or the string donated).
    public var person: String
    /// The recipient's display string (the id when none was donated).
    public var display: String
    public var focus: String
    /// n(p,f): the support.
    public var messages: Double
    public var messagesToPerson: Double
    public var messagesInFocus: Double
    public var totalMessages: Double
    public var share: Double
    public var baseRate: Double
    public var lift: Double
    public var pmi: Double
    /// Whether the person clears the thresholds to be suggested for the Focus's allowed-notifications list.
    public var isSuggested: Bool
}

/// Finds people to suggest for each Focus's allowed-notifications list from messaging donations.
///
/// A donation is a message when its intent definition has `kind: "sendMessage"`,
/// or, for an intent without definition, when its name contains `SendMessage`.
/// Its recipient is the parameter `recipient` (or `recipients`), or else the first
/// parameter whose definition is an entity of type `Person`, `INPerson` or
/// `Contact`; entities count by id. Messages without a recipient are skipped.
///
/// A person is suggested for Focus f when `n(p,f) >= minimumSupport` and
/// `lift >= minimumLift` (defaults: 3 messages, lift 1.25, α = 1).
/// Known limit: lift is bounded by 1/P(f), so in a Focus where nearly all
/// messages are sent, nobody stands out.
public struct FocusPeopleAnalysis: Sendable {
    public struct Configuration: Sendable, Hashable {
        public var smoothing: Double
        public var minimumSupport: Double
        public var minimumLift: Double

        public init(smoothing: Double = 1, minimumSupport: Double = 3, minimumLift: Double = 1.25) {
            self.smoothing = smoothing
            self.minimumSupport = minimumSupport
            self.minimumLift = minimumLift
        }
    }

    public var definitions: IntentDefinitionSet
    public var configuration: Configuration

    public init(definitions: IntentDefinitionSet = IntentDefinitionSet(), configuration: Configuration = Configuration()) {
        self.definitions = definitions
        self.configuration = configuration
    }

    static let recipientNames = ["recipient", "recipients"]
    static let personEntityTypes: Set<String> = ["Person", "INPerson", "Contact"]

    /// Whether the donation is a message.
    public func isMessage(_ donation: Donation) -> Bool {
        if let definition = definitions.definition(app: donation.app, intent: donation.intent) { return definition.kind == "sendMessage" }
        return donation.intent.contains("SendMessage")
    }

    /// The recipient (id, display) of a message, nil when the donation is no message or names nobody.
    public func recipient(of donation: Donation) -> (id: String, display: String)? {
        guard isMessage(donation) else { return nil }
        var names = Self.recipientNames
        if let definition = definitions.definition(app: donation.app, intent: donation.intent) {
            for parameter in definition.parameters {
                if case let .entity(type) = parameter.type, Self.personEntityTypes.contains(type) { names.append(parameter.name) }
            }
        }
        for name in names {
            switch donation.parameters[name] {
            case let .entity(id, display)?: return (id, display ?? id)
            case let .string(text)? where !text.isEmpty: return (text, text)
            default: continue
            }
        }
        return nil
    }

    // MARK: Statistics

    /// Every (person, Focus) pair with at least one message, sorted by Focus, then
    /// lift (highest first), then person id. Donations' `context.focus` is used
    /// as is (enrich them with a `FocusTimeline` first); `count` weighs a donation.
    public func associations(_ donations: [Donation]) -> [PersonFocusAssociation] {
        let noFocus = "\u{0}"
        var pairCounts: [String: [String: Double]] = [:]   // person -> focus -> n(p,f)
        var personCounts: [String: Double] = [:]
        var focusCounts: [String: Double] = [:]
        var displays: [String: String] = [:]
        var total = 0.0
        for donation in donations {
            guard let (id, display) = recipient(of: donation) else { continue }
            let focus = donation.focus.map(FocusName.normalize) ?? noFocus
            let weight = Double(donation.count)
            pairCounts[id, default: [:]][focus, default: 0] += weight
            personCounts[id, default: 0] += weight
            focusCounts[focus, default: 0] += weight
            if displays[id] == nil || displays[id] == id { displays[id] = display }
            total += weight
        }
        let alpha = configuration.smoothing
        let buckets = Double(focusCounts.count)
        var results: [PersonFocusAssociation] = []
        for (person, byFocus) in pairCounts {
            for (focus, count) in byFocus where focus != noFocus {
                let share = (count + alpha) / (personCounts[person]! + alpha * buckets)
                let baseRate = (focusCounts[focus]! + alpha) / (total + alpha * buckets)
                let lift = share / baseRate
                results.append(PersonFocusAssociation(
                    person: person, display: displays[person] ?? person, focus: focus, messages: count,
                    messagesToPerson: personCounts[person]!, messagesInFocus: focusCounts[focus]!, totalMessages: total,
                    share: share, baseRate: baseRate, lift: lift, pmi: log2(lift),
                    isSuggested: count >= configuration.minimumSupport && lift >= configuration.minimumLift))
            }
        }
        return results.sorted { ($0.focus, -$0.lift, $0.person) < ($1.focus, -$1.lift, $1.person) }
    }

    /// The people to suggest for `focus`'s allowed-notifications list, strongest first.
    public func suggestions(for focus: String, in donations: [Donation]) -> [PersonFocusAssociation] {
        let focus = FocusName.normalize(focus)
        return associations(donations).filter { $0.focus == focus && $0.isSuggested }
    }
}
