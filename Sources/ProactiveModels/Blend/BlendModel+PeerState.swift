import Foundation
import ProactiveCore

// MARK: - The state a peer needs to answer one question as the blend does

/// What another implementation of the default model's arithmetic (the numpy peer, `dev/blend-peer.py`)
/// needs to compute the blend's log-scores at one moment: the learned state, per target, as flat arrays,
/// the weights and the configuration's constants, the moment, and the encoded inputs of the two matrix
/// products (the profile's and the logistic part's moment vectors, as the engine encodes them), plus the
/// answer to check against (`logScores`, the model's `logScores(at:)`) and every target's signals
/// (`signals`, targets x `BlendFeature.count`, row-major).
///
/// `arrays` hold doubles, `floats` single-precision values (the profile's log-profile matrix as stored,
/// column by column), `integers` counts and indices; `scalars` the constants. Names and layouts are
/// documented in `dev/blend-peer.py`, which reads them as written by `write(to:)`.
///
/// ```swift
/// let state = model.peerState(at: moment)   // a model with history, a moment with no unlearned uses
/// try state.write(to: URL(fileURLWithPath: "/tmp/peer"))
/// ```
public struct BlendPeerState: Sendable {
    public var arrays: [String: [Double]] = [:]
    public var floats: [String: [Float]] = [:]
    public var integers: [String: [Int]] = [:]
    public var scalars: [String: Double] = [:]
    /// The feature names in weight order.
    public var features: [String] = []

    /// Writes `state.json` (scalars, feature names, each array's file, type and length) and one raw
    /// little-endian file per array (`NAME.f64`, `NAME.f32`, `NAME.i64`) into `directory` (created if needed).
    /// - Throws: the file system's error when a file cannot be written.
    public func write(to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var files: [String: [String: Any]] = [:]
        func raw<T>(_ name: String, _ values: [T], suffix: String) throws {
            let data = values.withUnsafeBufferPointer { Data(buffer: $0) }
            try data.write(to: directory.appendingPathComponent("\(name).\(suffix)"))
            files[name] = ["file": "\(name).\(suffix)", "type": suffix, "count": values.count]
        }
        for (name, values) in arrays { try raw(name, values, suffix: "f64") }
        for (name, values) in floats { try raw(name, values, suffix: "f32") }
        for (name, values) in integers { try raw(name, values.map(Int64.init), suffix: "i64") }
        let manifest: [String: Any] = ["scalars": scalars, "features": features, "arrays": files]
        let json = try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys])
        try json.write(to: directory.appendingPathComponent("state.json"))
    }
}

extension BlendModel {
    /// The learned state and the moment's encoded inputs a peer needs to compute `logScores(at: moment)`
    /// (see `BlendPeerState`). The moment's recent uses must all be learned already (as in the engine,
    /// which learns every donation before it ranks): the peer does not learn.
    public func peerState(at moment: Moment) -> BlendPeerState {
        if let then = asOfIfAsked(moment) { return then.peerState(at: moment) }
        var state = BlendPeerState()
        state.features = BlendFeature.allCases.map { "\($0)" }
        let targets = profile.space.targetCount
        let c = configuration
        state.scalars = [
            "targets": Double(targets), "now": moment.date.timeIntervalSince1970,
            "utcOffset": Double(profile.encoder.clock.offset(at: moment.date, writtenOffset: moment.utcOffset)),
            "timeConcentration": profile.encoder.configuration.timeConcentration,
            "fineTimeConcentration": c.fineTimeConcentration, "habitScale": c.habitHalfLifeDays / c.longHalfLifeDays,
            "transitionWindowSeconds": c.transitionWindowMinutes * 60, "staleTransitionSeconds": c.staleTransitionHours * 3600,
            "overnightTransitionSeconds": c.overnightTransitionHours * 3600, "frequencyEpsilon": UsageTracker.frequencyEpsilon,
            "lastTime": usage.lastTime, "lastTarget": Double(usage.lastTarget ?? -1), "followWindow": usage.followWindow,
            "timeKernels": Double(usage.timeKernels), "fineKernels": Double(usage.fineKernels),
            "sharesInstants": usage.dayHistory.sharesInstants ? 1 : 0,
            "firstDay": Double(usage.dayHistory.firstDay ?? Int.min),
            "hasLogistic": logistic == nil ? 0 : 1,
        ]
        state.arrays["weights"] = weights
        state.arrays["logScores"] = logScores(at: moment)
        state.arrays["signals"] = signals(at: moment)

        // Decayed sums: values, with each one's anchor and half-life (the peer computes the factors).
        func decayed(_ name: String, _ sums: DecayedSums) {
            state.arrays[name] = sums.values
            state.scalars[name + ".anchor"] = sums.anchor
            state.scalars[name + ".halfLifeSeconds"] = sums.halfLifeSeconds
        }
        decayed("short", usage.short)
        decayed("long", usage.long)
        decayed("transitionTotals", usage.transitionTotals)
        decayed("timeOfDay", usage.timeOfDay)
        decayed("timeOfDayLong", usage.timeOfDayLong)
        decayed("fineTime", usage.fineTime)
        decayed("fineTotals", usage.fineTotals)
        decayed("weekendFine", usage.weekendFine)
        decayed("weekendTotals", usage.weekendTotals)
        state.arrays["lastUse"] = usage.lastUse
        state.arrays["logUses"] = usage.logUses
        state.arrays["logOccasions"] = usage.logOccasions

        // Sparse rows (previous -> next), as CSR: row starts, columns, values (columns ascending).
        func csr(_ name: String, _ rows: [[Int: Double]]) {
            var starts = [0], columns: [Int] = [], values: [Double] = []
            for row in rows {
                for (next, value) in row.sorted(by: { $0.key < $1.key }) {
                    columns.append(next)
                    values.append(value)
                }
                starts.append(columns.count)
            }
            state.integers[name + ".starts"] = starts
            state.integers[name + ".columns"] = columns
            state.arrays[name + ".values"] = values
        }
        csr("transitions", usage.transitions)
        csr("followsWeekday", usage.follows[0])
        csr("followsWeekend", usage.follows[1])

        // Uses by local day (the habit-rate signal's input).
        let history = usage.dayHistory
        state.integers["history.days"] = history.days.map(Int.init)
        state.integers["history.starts"] = history.starts.map(Int.init)
        state.arrays["history.minutes"] = history.minutes.map(Double.init)
        state.integers["history.targets"] = history.targets.map(Int.init)

        // The profile: its log-profile matrix's dense columns as stored (single precision, column by column),
        // each one's group, the moment's dense input and the previous target's transition column (sparse).
        let input = profile.scoringInput(for: moment)
        state.floats["profile.dense"] = profile.logProfile.dense
        state.integers["profile.groups"] = profile.logProfile.denseColumns.map { profile.group(ofColumn: $0, at: moment).rawValue }
        state.arrays["profile.x"] = input.dense
        state.scalars["profile.absentTransition"] = Double(profile.logProfile.absentTransition)
        if let (target, weight) = input.previous {
            let column = profile.logProfile.transitions[target].sorted { $0.key < $1.key }
            state.integers["profile.previousRows"] = column.map(\.key)
            state.arrays["profile.previousValues"] = column.map { Double($0.value) }
            state.scalars["profile.previousWeight"] = weight
        } else {
            state.scalars["profile.previousWeight"] = 0
        }

        // The logistic part: its dense weights (targets x dense width, row-major), the moment's dense input and
        // the previous-target block's column of the moment (sparse), and its targets' positions in the blend's.
        if let logistic {
            let weights = logistic.weights
            let x = logistic.featureVector(for: moment)
            let block = weights.block
            state.arrays["logistic.dense"] = weights.dense
            state.arrays["logistic.x"] = Array(x[..<block.lowerBound]) + Array(x[block.upperBound...])
            var rows: [Int] = [], values: [Double] = []
            var columnWeight = 0.0
            // The block is one-hot (the previous target): at most one column of it is taken.
            for j in block where x[j] != 0 {
                columnWeight = x[j]
                for (row, value) in weights.previous[j - block.lowerBound].sorted(by: { $0.key < $1.key }) {
                    rows.append(row)
                    values.append(value)
                }
            }
            state.integers["logistic.previousRows"] = rows
            state.arrays["logistic.previousValues"] = values
            state.scalars["logistic.previousWeight"] = columnWeight
            state.scalars["logistic.targets"] = Double(logistic.space.targetCount)
            state.integers["logistic.position"] = profile.space.targets.map { logistic.space.index(of: $0)?.rawValue ?? -1 }
        }
        return state
    }
}
