import Foundation
import ProactiveCore

// MARK: - knowledgeC rows

/// One `ZOBJECT` row of Apple's knowledgeC.db (CoreDuet) with its source and
/// structured metadata joined, before conversion.
package struct KnowledgeCRecord: Sendable, Hashable {
    /// `Z_PK`.
    package var key: Int64
    /// `ZSTREAMNAME` (`/app/inFocus`, `/app/usage`, `/app/intents`, ...).
    package var stream: String?
    /// `ZSTARTDATE`: seconds since 2001-01-01 UTC (Cocoa epoch).
    package var startDate: Double?
    /// `ZVALUESTRING`: the bundle id for app streams.
    package var valueString: String?
    /// `ZSECONDSFROMGMT`: the device's offset when the row was written.
    package var secondsFromGMT: Int?
    /// `ZSOURCE.ZBUNDLEID` and `ZSOURCE.ZGROUPID`.
    package var sourceBundle: String?
    package var sourceGroup: String?
    /// `ZSTRUCTUREDMETADATA.Z_DKINTENTMETADATAKEY__INTENTCLASS` / `__INTENTVERB`.
    package var intentClass: String?
    package var intentVerb: String?

    package init(key: Int64, stream: String?, startDate: Double?, valueString: String? = nil, secondsFromGMT: Int? = nil,
                sourceBundle: String? = nil, sourceGroup: String? = nil, intentClass: String? = nil, intentVerb: String? = nil) {
        self.key = key
        self.stream = stream
        self.startDate = startDate
        self.valueString = valueString
        self.secondsFromGMT = secondsFromGMT
        self.sourceBundle = sourceBundle
        self.sourceGroup = sourceGroup
        self.intentClass = intentClass
        self.intentVerb = intentVerb
    }

    /// Seconds between 1970-01-01 and 2001-01-01 (the Cocoa reference date).
    package static let cocoaEpochOffset: Double = 978_307_200

    package static let inFocusStream = "/app/inFocus"
    package static let usageStream = "/app/usage"
    package static let intentsStream = "/app/intents"
}

/// How knowledgeC rows become donations.
package struct KnowledgeCOptions: Sendable, Hashable {
    package var user: String
    /// When set, each donation's offset is this zone's offset at its instant;
    /// otherwise the row's own `ZSECONDSFROMGMT`.
    package var timeZone: TimeZone?

    package init(user: String = Donation.defaultUser, timeZone: TimeZone? = nil) {
        self.user = user
        self.timeZone = timeZone
    }
}

// MARK: - Conversion (pure)

/// What became of one knowledgeC row.
package enum KnowledgeCConversion: Sendable, Equatable {
    case donation(Donation)
    /// A stream this reader does not convert ("stream /display/isBacklit").
    case skipped(String)
    /// A row of a converted stream deliberately left out, with the reason.
    case dropped(String)
    case problem(DeviceLogProblem)
}

extension KnowledgeCRecord {
    /// Converts this row: `/app/inFocus` and `/app/usage` become `open`
    /// donations of the bundle id; `/app/intents` becomes a donation of the
    /// intent class (parameter `verb` when the row has one, group from the source).
    ///
    /// - Parameter intentColumnsPresent: false when the database has no intent
    ///   metadata columns; `/app/intents` rows are then dropped, not misread.
    package func convert(options: KnowledgeCOptions, intentColumnsPresent: Bool = true) -> KnowledgeCConversion {
        let row = "ZOBJECT row \(key)"
        func problem(_ field: String, _ reason: String) -> KnowledgeCConversion {
            .problem(DeviceLogProblem(row: row, error: DonationLineError(field: field, reason: reason)))
        }
        guard let stream, !stream.isEmpty else { return .skipped("rows without ZSTREAMNAME") }
        let isOpen = stream == Self.inFocusStream || stream == Self.usageStream
        guard isOpen || stream == Self.intentsStream else { return .skipped("stream \(stream)") }
        guard let startDate else { return problem("ZSTARTDATE", "missing") }
        let seconds: Double
        do {
            seconds = try Timestamp.validateUnixSeconds(startDate + Self.cocoaEpochOffset)
        } catch {
            return problem("ZSTARTDATE", "\(startDate) (Cocoa seconds): \(error.reason)")
        }
        let date = Date(timeIntervalSince1970: seconds)
        let offset = options.timeZone.map { $0.secondsFromGMT(for: date) } ?? secondsFromGMT

        if isOpen {
            guard let bundle = valueString, !bundle.isEmpty else { return problem("ZVALUESTRING", "missing bundle id") }
            if let reason = IdentifierRules.bundleIdentifierProblem(bundle) { return problem("ZVALUESTRING", reason) }
            return .donation(Donation(user: options.user, app: bundle, intent: Donation.openIntent, date: date, utcOffset: offset))
        }
        guard intentColumnsPresent else { return .dropped("/app/intents without intent metadata columns") }
        guard let app = nonEmpty(valueString) ?? nonEmpty(sourceBundle) else {
            return problem("ZVALUESTRING", "missing bundle id (and no ZSOURCE.ZBUNDLEID)")
        }
        guard let intentClass = nonEmpty(intentClass) else {
            return problem("Z_DKINTENTMETADATAKEY__INTENTCLASS", "missing intent class")
        }
        if let reason = IdentifierRules.bundleIdentifierProblem(app) { return problem(nonEmpty(valueString) == nil ? "ZSOURCE.ZBUNDLEID" : "ZVALUESTRING", reason) }
        if let reason = IdentifierRules.controlCharacterProblem(intentClass) { return problem("Z_DKINTENTMETADATAKEY__INTENTCLASS", reason) }
        if let group = nonEmpty(sourceGroup), let reason = IdentifierRules.controlCharacterProblem(group) { return problem("ZSOURCE.ZGROUPID", reason) }
        var parameters: [String: ParameterValue] = [:]
        if let verb = nonEmpty(intentVerb) { parameters["verb"] = .string(verb) }
        return .donation(Donation(user: options.user, app: app, intent: intentClass, parameters: parameters, date: date,
                                  utcOffset: offset, group: nonEmpty(sourceGroup)))
    }

    private func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}
