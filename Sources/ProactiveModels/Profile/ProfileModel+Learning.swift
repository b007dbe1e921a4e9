import Foundation
import ProactiveCore

// MARK: - Learning and forgetting

extension ProfileModel {
    /// Learns one event: O(dimension) when it is the newest event of a known
    /// target with known context (the usual case); the vocabulary grows (and
    /// matrices are re-laid out) when the target or a context value is new.
    public mutating func update(with event: Event) {
        var grew = false
        var newContext = false
        if space.index(of: event.target) == nil { grew = true }
        for (key, value) in event.context where space.column(key: key, value: value) == nil {
            grew = true
            newContext = true
        }
        let absentBefore = keysWithAbsentValue
        // L before a new target (held only then: holding it always would copy L on every update).
        let before: LogProfileMatrix? = grew && !newContext ? logProfile : nil
        if grew {
            let old = space
            space.insert(event.target)
            _ = space.insertColumns(for: event.context)
            relayout(from: old)
        }
        let logged = space.loggedEvent(for: event)!
        if log.isEmpty {
            anchor = (logged.time / halfLifeSeconds).rounded(.down)
            if !anchor.isFinite { anchor = 0 }
        }
        let position = log.insert(logged, space: space)
        var touched: [(row: Int, columns: [Int])] = []
        if position + 1 < log.count {
            // The successor's previous target changes from log[position - 1] to the new event.
            let successor = log[position + 1]
            let oldPrevious = position > 0 ? log[position - 1] : nil
            touched.append(accumulate(successor, previous: oldPrevious, sign: -1))
            touched.append(accumulate(successor, previous: logged, sign: 1))
        }
        touched.append(accumulate(logged, previous: position > 0 ? log[position - 1] : nil, sign: 1))
        eventCounts[logged.target.rawValue] += 1
        for column in logged.context { contextUses[column.rawValue] += 1 }
        rebaseIfNeeded()
        let absenceChanged = keysWithAbsentValue != absentBefore
        if let before, !absenceChanged, before.rows == eventCounts.count - 1, currentReference == reference, decay == decayFactor() {
            // Only a target was added: every other entry of L is what it was (see `grownLogProfile`).
            grownLogProfile(from: before)
            for entry in touched { refresh(row: entry.row, columns: entry.columns) }
        } else if grew || absenceChanged || !refreshReference() {
            refreshAll()
        } else {
            for entry in touched { refresh(row: entry.row, columns: entry.columns) }
        }
    }

    /// Forgets one previously learned event (matched by target, date, context and weight).
    ///
    /// The event's counts are subtracted, the next event's previous-target
    /// feature is recomputed, and targets or context values left without any
    /// event leave the vocabulary (so no trace of them is saved).
    /// - Returns: `false` when no such event was learned.
    @discardableResult
    public mutating func remove(_ event: Event) -> Bool {
        guard let logged = space.loggedEvent(for: event), let position = log.position(of: logged) else { return false }
        let removed = log[position]
        let absentBefore = keysWithAbsentValue
        let previous = position > 0 ? log[position - 1] : nil
        var touched = [accumulate(removed, previous: previous, sign: -1)]
        if position + 1 < log.count {
            let successor = log[position + 1]
            touched.append(accumulate(successor, previous: removed, sign: -1))
            touched.append(accumulate(successor, previous: previous, sign: 1))
        }
        log.remove(at: position)
        eventCounts[removed.target.rawValue] -= 1
        for column in removed.context { contextUses[column.rawValue] -= 1 }
        if eventCounts[removed.target.rawValue] == 0 || removed.context.contains(where: { contextUses[$0.rawValue] == 0 }) {
            compact()
        } else if keysWithAbsentValue != absentBefore || !refreshReference() {
            refreshAll()
        } else {
            for entry in touched { refresh(row: entry.row, columns: entry.columns) }
        }
        return true
    }

    // MARK: Counts

    /// Adds `sign` times an event's scaled feature vector to its target's row.
    /// - Returns: the row and the count columns touched.
    @discardableResult
    mutating func accumulate(_ event: LoggedEvent, previous: LoggedEvent?, sign: Double) -> (row: Int, columns: [Int]) {
        let layout = layout
        let dimension = layout.dimension
        var x = [Double](repeating: 0, count: dimension)
        x.withUnsafeMutableBufferPointer { buffer in
            encoder.encode(date: event.date, utcOffset: event.utcOffset, contextColumns: event.context,
                           previous: previous.map { ($0.target, $0.date) }, layout: layout, into: buffer)
        }
        let scale = sign * event.weight * scaleFactor(time: event.time)
        let row = event.target.rawValue
        var touched: [Int] = []
        touched.reserveCapacity(layout.timeKernels + 8 + event.context.count)
        for j in 0 ..< dimension where x[j] != 0 {
            counts.add(scale * x[j], row: row, column: j)
            touched.append(j)
        }
        return (row, touched)
    }

    /// 2^(time/h - anchor), split as 2^frac · 2^whole so it is reproducible bit for bit
    /// whatever the anchor (rebasing multiplies by an exact power of two).
    func scaleFactor(time: Double) -> Double {
        guard configuration.halfLifeDays != nil else { return 1 }
        let exponent = time / halfLifeSeconds
        let whole = exponent.rounded(.down)
        return Foundation.exp2(exponent - whole) * Foundation.scalbn(1.0, Int(whole - anchor))
    }

    /// Keeps stored counts far from overflow by moving the anchor in whole half-lives (exact).
    mutating func rebaseIfNeeded() {
        guard configuration.halfLifeDays != nil, let last = log.last else { return }
        let exponent = (last.time / halfLifeSeconds).rounded(.down) - anchor
        guard exponent > 600 else { return }
        let shift = exponent - 300
        anchor += shift
        counts.scale(byPowerOfTwo: -Int(shift))
    }

    /// Rebuilds all counts from the log (used at fit, and after the vocabulary shrinks).
    mutating func rebuildCounts() {
        anchor = log.events.first.map { ($0.time / halfLifeSeconds).rounded(.down) } ?? 0
        if !anchor.isFinite { anchor = 0 }
        counts = SparseBlockMatrix(layout: layout)
        var previous: LoggedEvent?
        for event in log.events {
            accumulate(event, previous: previous, sign: 1)
            previous = event
        }
        rebaseIfNeeded()
        recountUses()
        refreshAll()
    }

    mutating func recountUses() {
        (eventCounts, contextUses) = log.uses(targets: space.targetCount, columns: space.contextCount)
    }

    // MARK: Vocabulary changes

    /// Moves counts into the layout of the grown `space` (columns keep their meaning).
    mutating func relayout(from old: FeatureSpace) {
        let mapping = old.mapping(to: space)
        counts = counts.remapped(from: encoder.layout(for: old), to: layout, targetMap: mapping.targets, contextMap: mapping.contexts)
        eventCounts += [Int](repeating: 0, count: space.targetCount - old.targetCount)
        contextUses += [Int](repeating: 0, count: space.contextCount - old.contextCount)
    }

    /// Drops targets and context values no event uses any more, then recounts from the log.
    mutating func compact() {
        let counts = eventCounts
        let uses = contextUses
        let filtered = space.filtered(keepingTarget: { counts[$0.rawValue] > 0 }, keepingColumn: { uses[$0.rawValue] > 0 })
        space = filtered.space
        log.remap(targets: filtered.targetMap, columns: filtered.columnMap)
        rebuildCounts()
    }
}
