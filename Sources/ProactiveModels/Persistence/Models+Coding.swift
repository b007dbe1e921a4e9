import Foundation

// MARK: - Profile

extension ProfileModel: ArchivedModel {
    public static let kind = "profile"

    func encodePayload(into writer: inout ByteWriter) {
        configuration.encode(into: &writer)
        space.encode(into: &writer)
        log.encode(into: &writer, space: space)
        writer.write(anchor)
        counts.encode(into: &writer)
    }

    init(payload reader: inout ByteReader) throws(ModelFormatError) {
        let configuration = try ProfileConfiguration(reader: &reader)
        let space = try FeatureSpace(reader: &reader)
        let log = try EventLog(reader: &reader, space: space)
        let anchor = try reader.readDouble("profile.anchor")
        let layout = MomentEncoder(configuration.encoder).layout(for: space)
        let counts = try SparseBlockMatrix(reader: &reader, field: "profile.counts", layout: layout)
        guard anchor.isFinite, anchor == anchor.rounded() else { throw .invalid(field: "profile.anchor", reason: "not a whole number") }
        self.init(configuration: configuration, space: space, log: log, counts: counts, anchor: anchor)
        guard eventCounts.allSatisfy({ $0 > 0 }) else { throw .invalid(field: "profile.log", reason: "a target without events") }
    }
}

// MARK: - Logistic

extension LogisticModel: ArchivedModel {
    public static let kind = "logistic"

    func encodePayload(into writer: inout ByteWriter) {
        configuration.encode(into: &writer)
        space.encode(into: &writer)
        log.encode(into: &writer, space: space)
        encodeFit(into: &writer)
    }

    /// What a fit learned (written after the vocabulary and the log).
    func encodeFit(into writer: inout ByteWriter) {
        weights.encode(into: &writer)
        writer.write(eventsSinceFit)
        writer.write(lastFitTime)
        writer.write(lastIterations)
    }

    init(payload reader: inout ByteReader) throws(ModelFormatError) {
        let configuration = try LogisticConfiguration(reader: &reader)
        let space = try FeatureSpace(reader: &reader)
        let log = try EventLog(reader: &reader, space: space)
        try self.init(configuration: configuration, space: space, log: log, fit: &reader)
    }

    /// Reads `encodeFit`'s part for a model of the given vocabulary and log.
    init(configuration: LogisticConfiguration, space: FeatureSpace, log: EventLog, fit reader: inout ByteReader) throws(ModelFormatError) {
        let layout = MomentEncoder(configuration.encoder).layout(for: space)
        let weights = try SparseBlockMatrix(reader: &reader, field: "logistic.weights", layout: layout)
        // The weights as read (not a zero-filled matrix replaced afterwards).
        self.init(configuration: configuration, space: space, log: log, weights: weights)
        eventsSinceFit = try reader.readInt("logistic.eventsSinceFit")
        lastFitTime = try reader.readOptionalDouble("logistic.lastFitTime")
        lastIterations = try reader.readInt("logistic.lastIterations")
    }
}

// MARK: - Blend

extension BlendModel: ArchivedModel {
    public static let kind = "blend"

    func encodePayload(into writer: inout ByteWriter) {
        configuration.encode(into: &writer)
        writer.write(weights)
        // The training rows come last from format 12 on: in a split archive, the heavy part's tail.
        func writeRows(_ heavy: inout ByteWriter) {
            heavy.write(rows.values)
            heavy.write(rows.candidateCounts)
            heavy.write(rows.labels)
        }
        if writer.version < 12 { writer.writeHeavy(writeRows) }
        writer.write(eventsSinceWeightFit)
        writer.write(eventsSinceGuard)
        profile.encodePayload(into: &writer)
        writer.write(logistic != nil)
        if let logistic {
            // The logistic component learns the same events as the profile: its vocabulary and log are
            // written once (flag 1) unless they differ.
            let shared = logistic.space == profile.space && logistic.log == profile.log
            writer.write(shared)
            if shared {
                logistic.configuration.encode(into: &writer)
                logistic.encodeFit(into: &writer)
            } else {
                logistic.encodePayload(into: &writer)
            }
        }
        usage.encode(into: &writer)
        weightGuard.encode(into: &writer)
        if writer.version >= 12 { writer.writeHeavyTail(writeRows) }
    }

    init(payload reader: inout ByteReader) throws(ModelFormatError) {
        guard reader.version >= 11 else {
            throw .invalid(field: "blend", reason: "saved in model format \(reader.version), before the weight on no Focus; refit it")
        }
        let configuration = try BlendConfiguration(reader: &reader)
        let weights = try reader.readDoubles("blend.weights")
        guard weights.count == BlendFeature.count, weights.allSatisfy(\.isFinite) else {
            throw .invalid(field: "blend.weights", reason: "expected \(BlendFeature.count) finite weights, found \(weights.count)")
        }
        // A light part read alone, or with its heavy part's tail left out, has no rows: the model scores
        // (and explains), it does not refit.
        func readRows(_ heavy: inout ByteReader) throws(ModelFormatError) -> ([Float], [Int], [Int]) {
            (try heavy.readFloats("blend.rows.values"), try heavy.readInts("blend.rows.candidates"), try heavy.readInts("blend.rows.labels"))
        }
        var rows = reader.version < 12 ? try reader.readHeavy(readRows) : nil
        let sinceFit = try reader.readInt("blend.eventsSinceWeightFit")
        let sinceGuard = try reader.readInt("blend.eventsSinceGuard")
        let profile = try ProfileModel(payload: &reader)
        var logistic: LogisticModel?
        if try reader.readBool("blend.logistic") {
            if try reader.readBool("blend.logistic.shared") {
                let logisticConfiguration = try LogisticConfiguration(reader: &reader)
                logistic = try LogisticModel(configuration: logisticConfiguration, space: profile.space, log: profile.log, fit: &reader)
            } else {
                logistic = try LogisticModel(payload: &reader)
            }
        }
        // The usage state is saved as it is (replaying every event to rebuild it would cost O(events) per load).
        let usage = try UsageTracker(reader: &reader, targets: profile.space.targetCount)
        let weightGuard = try WeightGuard(reader: &reader)
        if reader.version >= 12 { rows = try reader.readHeavyTail(readRows) }
        let (values, candidateCounts, labels) = rows ?? ([], [], [])
        guard candidateCounts.count == labels.count,
              zip(candidateCounts, labels).allSatisfy({ $0 > 0 && $0 <= 1 << 24 && (0 ..< $0).contains($1) }),
              candidateCounts.reduce(0, +) * BlendFeature.count == values.count
        else { throw .invalid(field: "blend.rows", reason: "row shapes do not match their values") }
        self.init(configuration: configuration, profile: profile, logistic: logistic, weights: weights,
                  rows: BlendRows(values: values, candidateCounts: candidateCounts, labels: labels), usage: usage)
        eventsSinceWeightFit = sinceFit
        eventsSinceGuard = sinceGuard
        self.weightGuard = weightGuard
    }
}

// MARK: - Guard

extension WeightGuard {
    func encode(into writer: inout ByteWriter) {
        writer.write(center)
        writer.write(centerName)
        writer.write(anchor)
        writer.write(anchorName)
        writer.write(share)
        writer.write(heldOutRows)
        writer.write(holdout.rawValue)
        writer.write(rowsAtChoice)
        writer.write(validation.count)
        for candidate in validation {
            writer.write(candidate.name)
            writer.write(candidate.logLikelihood)
            writer.write(candidate.meanReciprocalRank)
        }
    }

    init(reader: inout ByteReader) throws(ModelFormatError) {
        let center = try reader.readDoubles("blend.guard.center")
        let centerName = try reader.readString("blend.guard.centerName")
        let anchor = try reader.readDoubles("blend.guard.anchor")
        let anchorName = try reader.readString("blend.guard.anchorName")
        let share = try reader.readDouble("blend.guard.share")
        let heldOutRows = try reader.readInt("blend.guard.heldOutRows")
        let holdoutName = try reader.readString("blend.guard.holdout")
        guard let holdout = Holdout(rawValue: holdoutName) else { throw .invalid(field: "blend.guard.holdout", reason: "\(holdoutName)") }
        let rowsAtChoice = try reader.readInt("blend.guard.rowsAtChoice")
        guard center.count == BlendFeature.count, anchor.count == BlendFeature.count, (center + anchor).allSatisfy(\.isFinite),
              (0 ... 1).contains(share), heldOutRows >= 0, rowsAtChoice >= 0 else {
            throw .invalid(field: "blend.guard", reason: "weights, share or rows out of range")
        }
        let count = try reader.readInt("blend.guard.validation")
        guard (0 ... 64).contains(count) else { throw .invalid(field: "blend.guard.validation", reason: "\(count) candidates") }
        var validation: [Candidate] = []
        for _ in 0 ..< count {
            validation.append(Candidate(name: try reader.readString("blend.guard.validation.name"),
                                        logLikelihood: try reader.readDouble("blend.guard.validation.logLikelihood"),
                                        meanReciprocalRank: try reader.readDouble("blend.guard.validation.mrr")))
        }
        self.init(center: center, centerName: centerName, anchor: anchor, anchorName: anchorName, share: share,
                  heldOutRows: heldOutRows, holdout: holdout, rowsAtChoice: rowsAtChoice, validation: validation)
    }
}
