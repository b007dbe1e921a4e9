import Foundation
import ProactiveCore

// MARK: - Configurations

extension EncoderConfiguration {
    func encode(into writer: inout ByteWriter) {
        writer.write(timeKernels)
        writer.write(timeConcentration)
        writer.write(previousHalfLifeMinutes)
        writer.write(timeZoneIdentifier)
    }

    init(reader: inout ByteReader) throws(ModelFormatError) {
        self.init(timeKernels: try reader.readInt("encoder.timeKernels"),
                  timeConcentration: try reader.readDouble("encoder.timeConcentration"),
                  previousHalfLifeMinutes: try reader.readDouble("encoder.previousHalfLifeMinutes"),
                  timeZoneIdentifier: try reader.readOptionalString("encoder.timeZoneIdentifier"))
    }
}

extension ProfileConfiguration {
    func encode(into writer: inout ByteWriter) {
        encoder.encode(into: &writer)
        writer.write(halfLifeDays)
        writer.write(smoothing)
        writer.write(priorSmoothing)
    }

    init(reader: inout ByteReader) throws(ModelFormatError) {
        self.init(encoder: try EncoderConfiguration(reader: &reader), halfLifeDays: try reader.readOptionalDouble("profile.halfLifeDays"),
                  smoothing: try reader.readDouble("profile.smoothing"), priorSmoothing: try reader.readDouble("profile.priorSmoothing"))
        do { try validate() } catch { throw .invalid(field: "profile configuration", reason: error.description) }
    }
}

extension LogisticConfiguration {
    func encode(into writer: inout ByteWriter) {
        encoder.encode(into: &writer)
        writer.write(l2)
        writer.write(halfLifeDays)
        writer.write(maxIterations)
        writer.write(gradientTolerance)
        writer.write(refitEvery)
        writer.write(refitAfterDays)
    }

    init(reader: inout ByteReader) throws(ModelFormatError) {
        self.init(encoder: try EncoderConfiguration(reader: &reader), l2: try reader.readDouble("logistic.l2"),
                  halfLifeDays: try reader.readOptionalDouble("logistic.halfLifeDays"),
                  maxIterations: try reader.readInt("logistic.maxIterations"),
                  gradientTolerance: try reader.readDouble("logistic.gradientTolerance"),
                  refitEvery: try reader.readInt("logistic.refitEvery"), refitAfterDays: try reader.readDouble("logistic.refitAfterDays"))
        do { try validate() } catch { throw .invalid(field: "logistic configuration", reason: error.description) }
    }
}

extension BlendConfiguration {
    func encode(into writer: inout ByteWriter) {
        profile.encode(into: &writer)
        logistic.encode(into: &writer)
        writer.write(includeLogistic)
        for value in [holdoutShare, shortHalfLifeDays, longHalfLifeDays, habitHalfLifeDays, transitionWindowMinutes, weightL2] {
            writer.write(value)
        }
        writer.write(maxRows)
        writer.write(maxRowValues)
        writer.write(refitEvery)
        writer.write(rowHalfLife)
        writer.write(fineTimeKernels)
        for value in [fineTimeConcentration, routineHalfLifeDays, staleTransitionHours, overnightTransitionHours, validationShare] {
            writer.write(value)
        }
        writer.write(guardMinimumRows)
    }

    init(reader: inout ByteReader) throws(ModelFormatError) {
        self.init(profile: try ProfileConfiguration(reader: &reader), logistic: try LogisticConfiguration(reader: &reader),
                  includeLogistic: try reader.readBool("blend.includeLogistic"), holdoutShare: try reader.readDouble("blend.holdoutShare"),
                  shortHalfLifeDays: try reader.readDouble("blend.shortHalfLifeDays"),
                  longHalfLifeDays: try reader.readDouble("blend.longHalfLifeDays"),
                  habitHalfLifeDays: try reader.readDouble("blend.habitHalfLifeDays"),
                  transitionWindowMinutes: try reader.readDouble("blend.transitionWindowMinutes"),
                  weightL2: try reader.readDouble("blend.weightL2"), maxRows: try reader.readInt("blend.maxRows"),
                  maxRowValues: try reader.readInt("blend.maxRowValues"), refitEvery: try reader.readInt("blend.refitEvery"),
                  rowHalfLife: try reader.readOptionalDouble("blend.rowHalfLife"),
                  fineTimeKernels: try reader.readInt("blend.fineTimeKernels"),
                  fineTimeConcentration: try reader.readDouble("blend.fineTimeConcentration"),
                  routineHalfLifeDays: try reader.readDouble("blend.routineHalfLifeDays"),
                  staleTransitionHours: try reader.readDouble("blend.staleTransitionHours"),
                  overnightTransitionHours: try reader.readDouble("blend.overnightTransitionHours"),
                  validationShare: try reader.readDouble("blend.validationShare"),
                  guardMinimumRows: try reader.readInt("blend.guardMinimumRows"))
        do { try validate() } catch { throw .invalid(field: "blend configuration", reason: error.description) }
    }
}

// MARK: - Vocabulary and event log

extension FeatureSpace {
    func encode(into writer: inout ByteWriter) {
        writer.write(UInt64(targetCount))
        for target in targets { writer.write(target.rawValue) }
        writer.write(UInt64(contextCount))
        for value in contextValues {
            writer.write(value.key)
            writer.write(value.value)
        }
    }

    init(reader: inout ByteReader) throws(ModelFormatError) {
        self.init()
        let targetCount = try reader.readCount("vocabulary.targets", elementSize: 4)
        for _ in 0 ..< targetCount { insert(TargetKey(rawValue: try reader.readString("vocabulary.target"))) }
        guard self.targetCount == targetCount else { throw .invalid(field: "vocabulary.targets", reason: "duplicate target keys") }
        let contextCount = try reader.readCount("vocabulary.context", elementSize: 8)
        for _ in 0 ..< contextCount {
            let key = try reader.readString("vocabulary.context.key")
            insert(ContextValue(key: key, value: try reader.readString("vocabulary.context.value")))
        }
        guard self.contextCount == contextCount else { throw .invalid(field: "vocabulary.context", reason: "duplicate context values") }
    }
}

extension EventLog {
    /// Writes the count, then one record per event. A saved head not decoded yet
    /// is written as it was read (its bytes are exactly the records it was read from).
    /// Split (`ByteWriter.split`): the count, the newest record and the per-target and
    /// per-context-value counts (of `space`) inline, the records to the heavy part.
    func encode(into writer: inout ByteWriter, space: FeatureSpace) {
        writer.write(UInt64(count))
        if writer.split, let last {
            Self.encode(last, into: &writer)
            let uses = uses(targets: space.targetCount, columns: space.contextCount)
            writer.write(uses.events)
            writer.write(uses.context)
        }
        writer.writeHeavy { heavy in
            switch savedHead {
            case let .records(records): heavy.append(records)
            case let .events(events): for event in events { Self.encode(event, into: &heavy) }
            case .absent: preconditionFailure("a log read without its records cannot be saved")
            case nil: break
            }
            for event in tail { Self.encode(event, into: &heavy) }
        }
    }

    private static func encode(_ event: LoggedEvent, into writer: inout ByteWriter) {
        writer.write(Int32(event.target.rawValue))
        writer.write(event.time)
        writer.write(event.utcOffset != nil)
        writer.write(Int32(event.utcOffset ?? 0))
        writer.write(UInt32(event.context.count))
        for column in event.context { writer.write(Int32(column.rawValue)) }
        writer.write(event.weight)
    }

    /// Reads a log and checks every index against `space` and the canonical
    /// order, in one scan that builds no events: the records are kept as read
    /// and decoded on first use (`SavedEvents`). A light part read alone gives
    /// a log of its counts and newest event, without records.
    init(reader: inout ByteReader, space: FeatureSpace) throws(ModelFormatError) {
        guard reader.parts.isSplit else {
            let count = try reader.readCount("log", elementSize: 29)
            let saved = try Self.scan(&reader, count: count, space: space)
            self = saved.map(EventLog.init(saved:)) ?? EventLog()
            return
        }
        let count = Int(clamping: try reader.read(UInt64.self, "log"))
        guard count > 0 else {
            self.init()
            return
        }
        let last = try Self.readRecord(&reader, space: space)
        let targetCounts = try reader.readInts("log.targetCounts")
        let columnUses = try reader.readInts("log.columnUses")
        guard targetCounts.count == space.targetCount, columnUses.count == space.contextCount,
              targetCounts.allSatisfy({ $0 >= 0 }), columnUses.allSatisfy({ $0 >= 0 }), targetCounts.reduce(0, +) == count else {
            throw .invalid(field: "log.counts", reason: "do not match \(count) events of \(space.targetCount) targets")
        }
        if let scanned = try reader.readHeavy({ heavy throws(ModelFormatError) in try Self.scan(&heavy, count: count, space: space) }) {
            guard let saved = scanned, saved.last == last, saved.targetCounts == targetCounts, saved.columnUses == columnUses else {
                throw .invalid(field: "log", reason: "the records do not match the counts and newest event saved with them")
            }
            self.init(saved: saved)
        } else {
            self.init(saved: SavedEvents(absent: count, last: last, targetCounts: targetCounts, columnUses: columnUses))
        }
    }

    /// Scans `count` records (see `init(reader:space:)`), checking each as `readRecord` does, in place (the
    /// layout `visitUses` reads). The records are kept as read: without a copy when they are all of the
    /// reader's bytes (a heavy part read without its tail, whose records are the one log). - Returns: nil for none.
    private static func scan(_ reader: inout ByteReader, count: Int, space: FeatureSpace) throws(ModelFormatError) -> SavedEvents? {
        let start = reader.offset
        let bytes = reader.bytes
        let (targets, contexts) = (space.targetCount, space.contextCount)
        var targetCounts = [Int](repeating: 0, count: targets)
        var columnUses = [Int](repeating: 0, count: contexts)
        var failure: ModelFormatError?
        // The scan builds no event (no context array per record): a record is read in full only to
        // order two events of the same time, and for the newest one.
        var (at, previousStart, previousTime) = (start, start, -Double.infinity)
        bytes.withUnsafeBytes { raw in
            let end = start + reader.remaining
            for position in 0 ..< count {
                guard end - at >= 29 else { return failure = .truncated(field: "log.record", offset: at) }
                let target = Int(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int32.self)))
                guard (0 ..< targets).contains(target) else {
                    return failure = .invalid(field: "log.target", reason: "index \(target) outside 0..<\(targets)")
                }
                let time = Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 4, as: UInt64.self)))
                guard time.isFinite else { return failure = .invalid(field: "log.time", reason: "not finite") }
                guard raw[at + 12] <= 1 else { return failure = .invalid(field: "log.utcOffset", reason: "flag byte \(raw[at + 12]) is neither 0 nor 1") }
                let columnCount = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 17, as: UInt32.self)))
                guard columnCount <= contexts else { return failure = .invalid(field: "log.context", reason: "too many values") }
                guard end - at >= 29 + 4 * columnCount else { return failure = .truncated(field: "log.context", offset: at + 21) }
                for slot in 0 ..< columnCount {
                    let index = Int(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 21 + 4 * slot, as: Int32.self)))
                    guard (0 ..< contexts).contains(index) else {
                        return failure = .invalid(field: "log.context", reason: "column \(index) outside 0..<\(contexts)")
                    }
                    columnUses[index] += 1
                }
                let weight = Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 21 + 4 * columnCount, as: UInt64.self)))
                guard weight.isFinite, weight > 0 else { return failure = .invalid(field: "log.weight", reason: "must be positive") }
                targetCounts[target] += 1
                // Saved logs are in canonical order: checking costs O(n), sorting again O(n log n).
                if position > 0, time <= previousTime,
                   time < previousTime || EventLog.precedes(Self.record(bytes, at: at, space), Self.record(bytes, at: previousStart, space), space) {
                    return failure = .invalid(field: "log", reason: "events are not in canonical order (at \(position))")
                }
                (previousStart, previousTime) = (at, time)
                at += 29 + 4 * columnCount
            }
        }
        if let failure { throw failure }
        _ = try reader.take(at - start, "log")
        guard count > 0 else { return nil }
        let last = Self.record(bytes, at: previousStart, space)
        let records = start == 0 && at == bytes.count ? bytes : Array(bytes[start ..< at])
        return SavedEvents(records: records, count: count, last: last, targetCounts: targetCounts, columnUses: columnUses) { records, count in
            // Checked when read: decoding the same bytes again cannot fail.
            var again = ByteReader(records)
            return (0 ..< count).map { _ in try! Self.readRecord(&again, space: space) }
        }
    }

    /// Hands `body` the target, time, offset and weight of each of `count` records the scan has checked
    /// (`init(reader:space:)`) whose target `wanted` marks, reading them in place: a record is 29 bytes plus
    /// 4 a context column (target Int32, time Double, offset flag UInt8 and Int32, column count UInt32, the
    /// columns, weight Double, little-endian), so another target's record is skipped by its length.
    static func visitUses(records: [UInt8], count: Int, of wanted: [Bool], _ body: (LoggedUse) -> Void) {
        records.withUnsafeBytes { raw in
            var at = 0
            for _ in 0 ..< count {
                let target = Int(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int32.self)))
                let columns = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 17, as: UInt32.self)))
                if target < wanted.count, wanted[target] {
                    let time = Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 4, as: UInt64.self)))
                    let offset = raw[at + 12] == 1 ? Int(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 13, as: Int32.self))) : nil
                    let weight = Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 21 + 4 * columns, as: UInt64.self)))
                    body(LoggedUse(target: TargetIndex(target), time: time, utcOffset: offset, weight: weight))
                }
                at += 29 + 4 * columns
            }
        }
    }

    /// A record the scan has checked, read again in full (it cannot fail).
    private static func record(_ bytes: [UInt8], at offset: Int, _ space: FeatureSpace) -> LoggedEvent {
        var again = ByteReader(bytes, offset: offset)
        return try! readRecord(&again, space: space)
    }

    /// One record, its indices checked against `space`.
    private static func readRecord(_ reader: inout ByteReader, space: FeatureSpace) throws(ModelFormatError) -> LoggedEvent {
        var columns: [ContextColumn] = []
        var utcOffset: Int?
        var weight = 0.0
        let (target, time) = try visitRecord(&reader, space: space, offset: { utcOffset = $0 }, weight: { weight = $0 }) {
            columns.append(ContextColumn($0))
        }
        // Written sorted (a logged event's context always is): checked, sorted only if not.
        if columns.indices.dropFirst().contains(where: { columns[$0] < columns[$0 - 1] }) { columns.sort() }
        return LoggedEvent(target: TargetIndex(target), time: time, utcOffset: utcOffset, context: columns, weight: weight)
    }

    /// Reads one record and checks it against `space`, handing its context columns, offset and weight to the
    /// closures. - Returns: the target index and the time.
    private static func visitRecord(_ reader: inout ByteReader, space: FeatureSpace, offset: (Int?) -> Void = { _ in },
                                    weight: (Double) -> Void = { _ in }, column: (Int) -> Void) throws(ModelFormatError) -> (Int, Double) {
        let target = Int(try reader.read(Int32.self, "log.target"))
        guard (0 ..< space.targetCount).contains(target) else {
            throw .invalid(field: "log.target", reason: "index \(target) outside 0..<\(space.targetCount)")
        }
        let time = try reader.readDouble("log.time")
        guard time.isFinite else { throw .invalid(field: "log.time", reason: "not finite") }
        let hasOffset = try reader.readBool("log.utcOffset")
        let utcOffset = Int(try reader.read(Int32.self, "log.utcOffset"))
        offset(hasOffset ? utcOffset : nil)
        let columnCount = Int(try reader.read(UInt32.self, "log.context"))
        guard columnCount <= space.contextCount else { throw .invalid(field: "log.context", reason: "too many values") }
        for _ in 0 ..< columnCount {
            let index = Int(try reader.read(Int32.self, "log.context.column"))
            guard (0 ..< space.contextCount).contains(index) else {
                throw .invalid(field: "log.context", reason: "column \(index) outside 0..<\(space.contextCount)")
            }
            column(index)
        }
        let value = try reader.readDouble("log.weight")
        guard value.isFinite, value > 0 else { throw .invalid(field: "log.weight", reason: "must be positive") }
        weight(value)
        return (target, time)
    }
}

// MARK: - Usage state

extension DecayedSums {
    func encode(into writer: inout ByteWriter) {
        writer.write(halfLifeSeconds)
        writer.write(anchor)
        writer.write(isAnchored)
        writer.write(values)
    }

    init(reader: inout ByteReader, field: String, count: Int) throws(ModelFormatError) {
        let halfLife = try reader.readDouble("\(field).halfLife")
        let anchor = try reader.readDouble("\(field).anchor")
        let anchored = try reader.readBool("\(field).anchored")
        let values = try reader.readDoubles("\(field).values")
        guard halfLife > 0, halfLife.isFinite, anchor.isFinite, values.count == count else {
            throw .invalid(field: field, reason: "\(values.count) values for \(count), half-life \(halfLife)")
        }
        self.init(halfLifeSeconds: halfLife, anchor: anchor, values: values, anchored: anchored)
    }
}

extension UsageTracker {
    func encode(into writer: inout ByteWriter) {
        writer.write(timeKernels)
        writer.write(lastUse)
        writer.write(lastTarget ?? -1)
        writer.write(lastTime)
        short.encode(into: &writer)
        long.encode(into: &writer)
        transitionTotals.encode(into: &writer)
        timeOfDay.encode(into: &writer)
        timeOfDayLong.encode(into: &writer)
        writer.write(fineKernels)
        fineTime.encode(into: &writer)
        fineTotals.encode(into: &writer)
        writer.write(uses)
        writer.write(occasions)
        writer.write(activity.kernels)
        activity.sums.encode(into: &writer)
        writer.write(activity.firstDay ?? Int.min)
        for row in transitions { Self.encodeSparse(row, into: &writer) }
        weekendFine.encode(into: &writer)
        weekendTotals.encode(into: &writer)
        writer.write(followWindow)
        for day in 0 ..< 2 {
            for row in follows[day] { Self.encodeSparse(row, into: &writer) }
        }
        if writer.version >= 10 {
            writer.write(dayHistory.days.map(Int.init))
            writer.write(dayHistory.starts.map(Int.init))
            writer.write(dayHistory.minutes.map(Double.init))
            writer.write(dayHistory.targets.map(Int.init))
            writer.write(dayHistory.firstDay ?? Int.min)
        }
    }

    private static func encodeSparse(_ row: [Int: Double], into writer: inout ByteWriter) {
        let keys = row.keys.sorted()
        writer.write(keys)
        writer.write(keys.map { row[$0]! })
    }

    private static func decodeSparse(_ reader: inout ByteReader, field: String, targets: Int) throws(ModelFormatError) -> [Int: Double] {
        let keys = try reader.readInts("\(field).keys")
        let values = try reader.readDoubles("\(field).values")
        guard keys.count == values.count, keys.allSatisfy({ (0 ..< targets).contains($0) }) else {
            throw .invalid(field: field, reason: "keys and values do not match")
        }
        return Dictionary(uniqueKeysWithValues: zip(keys, values))
    }

    /// - Parameter targets: the model's target count (every array is checked against it).
    init(reader: inout ByteReader, targets: Int) throws(ModelFormatError) {
        let kernels = try reader.readInt("usage.timeKernels")
        let lastUse = try reader.readDoubles("usage.lastUse")
        let lastTarget = try reader.readInt("usage.lastTarget")
        let lastTime = try reader.readDouble("usage.lastTime")
        guard kernels >= 0, kernels <= 1 << 12, lastUse.count == targets, (-1 ..< targets).contains(lastTarget) else {
            throw .invalid(field: "usage", reason: "shape does not match \(targets) targets")
        }
        let short = try DecayedSums(reader: &reader, field: "usage.short", count: targets)
        let long = try DecayedSums(reader: &reader, field: "usage.long", count: targets)
        let totals = try DecayedSums(reader: &reader, field: "usage.transitionTotals", count: targets)
        let timeOfDay = try DecayedSums(reader: &reader, field: "usage.timeOfDay", count: targets * kernels)
        let timeOfDayLong = try DecayedSums(reader: &reader, field: "usage.timeOfDayLong", count: targets * kernels)
        let fineKernels = try reader.readInt("usage.fineKernels")
        guard fineKernels >= 0, fineKernels <= 1 << 12 else { throw .invalid(field: "usage.fineKernels", reason: "\(fineKernels) kernels") }
        let fineTime = try DecayedSums(reader: &reader, field: "usage.fineTime", count: targets * fineKernels)
        let fineTotals = try DecayedSums(reader: &reader, field: "usage.fineTotals", count: targets)
        let uses = try reader.readDoubles("usage.uses")
        let occasions = try reader.readDoubles("usage.occasions")
        guard uses.count == targets, occasions.count == targets else {
            throw .invalid(field: "usage.uses", reason: "shape does not match \(targets) targets")
        }
        let activityKernels = try reader.readInt("usage.activity.kernels")
        guard activityKernels >= 0, activityKernels <= 1 << 12 else {
            throw .invalid(field: "usage.activity.kernels", reason: "\(activityKernels) kernels")
        }
        let activitySums = try DecayedSums(reader: &reader, field: "usage.activity", count: 7 * activityKernels)
        let firstDay = try reader.readInt("usage.activity.firstDay")
        let activity = ActivityLevel(kernels: activityKernels, sums: activitySums, firstDay: firstDay == Int.min ? nil : firstDay)
        var transitions: [[Int: Double]] = []
        transitions.reserveCapacity(targets)
        for _ in 0 ..< targets { transitions.append(try Self.decodeSparse(&reader, field: "usage.transitions", targets: targets)) }
        let weekendFine = try DecayedSums(reader: &reader, field: "usage.weekendFine", count: targets * fineKernels)
        let weekendTotals = try DecayedSums(reader: &reader, field: "usage.weekendTotals", count: targets)
        let followWindow = try reader.readDouble("usage.followWindow")
        guard followWindow >= 0, followWindow.isFinite else { throw .invalid(field: "usage.followWindow", reason: "\(followWindow) seconds") }
        var follows: [[[Int: Double]]] = [[], []]
        for day in 0 ..< 2 {
            for _ in 0 ..< targets { follows[day].append(try Self.decodeSparse(&reader, field: "usage.follows", targets: targets)) }
        }
        self.init(lastUse: lastUse, lastTarget: lastTarget < 0 ? nil : lastTarget, lastTime: lastTime, short: short, long: long,
                  transitions: transitions, transitionTotals: totals, timeOfDay: timeOfDay, timeOfDayLong: timeOfDayLong, timeKernels: kernels,
                  fineTime: fineTime, fineTotals: fineTotals, fineKernels: fineKernels, uses: uses, occasions: occasions, activity: activity,
                  weekendFine: weekendFine, weekendTotals: weekendTotals, follows: follows, followWindow: followWindow)
        if reader.version >= 10 {
            let days = try reader.readInts("usage.dayHistory.days")
            let starts = try reader.readInts("usage.dayHistory.starts")
            let minutes = try reader.readDoubles("usage.dayHistory.minutes")
            let uses = try reader.readInts("usage.dayHistory.targets")
            let firstDay = try reader.readInt("usage.dayHistory.firstDay")
            let history = DayHistory(days: days.map { Int32(truncatingIfNeeded: $0) }, starts: starts.map { Int32(truncatingIfNeeded: $0) },
                                     minutes: minutes.map(Float.init), targets: uses.map { Int32(truncatingIfNeeded: $0) },
                                     firstDay: firstDay == Int.min ? nil : firstDay)
            guard history.isConsistent, uses.allSatisfy({ (0 ..< targets).contains($0) }) else {
                throw .invalid(field: "usage.dayHistory", reason: "days, uses or targets out of range")
            }
            dayHistory = history
        }
    }
}

// MARK: - Sparse previous-target blocks

extension SparseBlockMatrix {
    /// Format 7: the dense columns, then per previous target the targets of its stored pairs
    /// (increasing) and their values. Formats 5 and 6: the full row-major matrix.
    func encode(into writer: inout ByteWriter) {
        guard writer.version >= 7 else {
            writer.write(expanded)
            return
        }
        writer.write(dense)
        for column in previous {
            let keys = column.keys.sorted()
            writer.write(keys)
            writer.write(keys.map { column[$0]! })
        }
    }

    /// Reads a matrix of `layout` written by `encode` in the reader's format version.
    init(reader: inout ByteReader, field: String, layout: FeatureLayout) throws(ModelFormatError) {
        let targets = layout.targetCount
        let dimension = layout.dimension
        guard reader.version >= 7 else {
            let full = try reader.readDoubles(field)
            guard full.count == targets * dimension else {
                throw .invalid(field: field, reason: "\(full.count) values for \(targets) x \(dimension)")
            }
            guard full.allSatisfy(\.isFinite) else { throw .invalid(field: field, reason: "not finite") }
            self.init(full: full, layout: layout)
            return
        }
        let dense = try reader.readDoubles("\(field).dense")
        guard dense.count == targets * (dimension - targets) else {
            throw .invalid(field: "\(field).dense", reason: "\(dense.count) values for \(targets) x \(dimension - targets)")
        }
        guard dense.allSatisfy(\.isFinite) else { throw .invalid(field: "\(field).dense", reason: "not finite") }
        var previous: [[Int: Double]] = []
        previous.reserveCapacity(targets)
        for p in 0 ..< targets {
            let keys = try reader.readInts("\(field).previous.targets")
            let values = try reader.readDoubles("\(field).previous.values")
            guard keys.count == values.count, keys.allSatisfy({ (0 ..< targets).contains($0) }),
                  keys.indices.dropFirst().allSatisfy({ keys[$0 - 1] < keys[$0] }) else {
                throw .invalid(field: "\(field).previous", reason: "previous target \(p): targets not increasing within 0..<\(targets) or not one value each")
            }
            guard values.allSatisfy({ $0.isFinite && $0 != 0 }) else {
                throw .invalid(field: "\(field).previous", reason: "previous target \(p): a value is zero or not finite")
            }
            previous.append(Dictionary(uniqueKeysWithValues: zip(keys, values)))
        }
        self.init(layout: layout, dense: dense, previous: previous)
    }
}
