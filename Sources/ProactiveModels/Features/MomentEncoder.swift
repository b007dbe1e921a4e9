import Foundation
import ProactiveCore

// MARK: - Configuration

/// How moments become feature vectors. Part of every saved model.
public struct EncoderConfiguration: Sendable, Hashable {
    /// Number of von Mises kernels around the clock, centred in the middle of equal
    /// slices of the day (24 kernels: 00:30, 01:30, ...).
    package var timeKernels: Int = 24
    /// Kernel concentration κ: larger is narrower. κ = 8 with 24 kernels gives
    /// neighbouring centres a weight of exp(8(cos 15° - 1)) ≈ 0.76 of the peak.
    package var timeConcentration: Double = 8
    /// The previous target's column holds 0.5^(gap / half-life), "none" the rest.
    package var previousHalfLifeMinutes: Double = 30
    /// The user's zone (IANA name); `nil` reads each date in the offset it was written in.
    package var timeZoneIdentifier: String?

    public init(timeKernels: Int = 24, timeConcentration: Double = 8, previousHalfLifeMinutes: Double = 30,
                timeZoneIdentifier: String? = nil) {
        self.timeKernels = timeKernels
        self.timeConcentration = timeConcentration
        self.previousHalfLifeMinutes = previousHalfLifeMinutes
        self.timeZoneIdentifier = timeZoneIdentifier
    }

    /// The local clock this configuration reads dates with.
    package var clock: LocalClock { LocalClock(timeZone: timeZoneIdentifier.flatMap(TimeZone.init(identifier:))) }
}

// MARK: - Layout

/// Where each feature group lives in a moment vector of a given space.
///
/// Order: bias | time-of-day kernels | weekday (7, Monday first) |
/// weekday/weekend (2) | context values | previous target (one per target, then "none").
public struct FeatureLayout: Sendable, Hashable {
    package let timeKernels: Int
    package let contextCount: Int
    package let targetCount: Int

    package init(timeKernels: Int, contextCount: Int, targetCount: Int) {
        self.timeKernels = timeKernels
        self.contextCount = contextCount
        self.targetCount = targetCount
    }

    package var bias: Int { 0 }
    package var time: Range<Int> { 1 ..< 1 + timeKernels }
    package var weekday: Range<Int> { time.upperBound ..< time.upperBound + 7 }
    package var weekend: Range<Int> { weekday.upperBound ..< weekday.upperBound + 2 }
    package var context: Range<Int> { weekend.upperBound ..< weekend.upperBound + contextCount }
    /// Previous-target columns followed by the "no recent previous" column.
    package var previous: Range<Int> { context.upperBound ..< context.upperBound + targetCount + 1 }
    package var noPrevious: Int { previous.upperBound - 1 }
    public var dimension: Int { previous.upperBound }

    package func column(of context: ContextColumn) -> Int { self.context.lowerBound + context.rawValue }
    package func column(previous target: TargetIndex) -> Int { previous.lowerBound + target.rawValue }

    /// Where each column of `old` lands in `new`, given where old targets and
    /// context values went (nil when dropped).
    package static func columnMap(from old: FeatureLayout, to new: FeatureLayout, targetMap: [Int?], contextMap: [Int?]) -> [Int?] {
        var map = [Int?](repeating: nil, count: old.dimension)
        map[old.bias] = new.bias
        for k in 0 ..< old.timeKernels { map[old.time.lowerBound + k] = new.time.lowerBound + k }
        for k in 0 ..< 7 { map[old.weekday.lowerBound + k] = new.weekday.lowerBound + k }
        for k in 0 ..< 2 { map[old.weekend.lowerBound + k] = new.weekend.lowerBound + k }
        for (c, mapped) in contextMap.enumerated() { map[old.context.lowerBound + c] = mapped.map { new.context.lowerBound + $0 } }
        for (t, mapped) in targetMap.enumerated() { map[old.previous.lowerBound + t] = mapped.map { new.previous.lowerBound + $0 } }
        map[old.noPrevious] = new.noPrevious
        return map
    }
}

// MARK: - Encoder

/// Turns an instant, its context and the previous target into a dense vector.
///
/// Every group except context sums to 1 (soft one-hot), so counts over
/// encoded events are per-group distributions (used by the profile model).
/// Time of day is cyclic: 07:55 and 08:05 get nearly the same kernel weights,
/// and so do 23:55 and 00:05.
public struct MomentEncoder: Sendable, Hashable {
    package let configuration: EncoderConfiguration
    package let clock: LocalClock
    private let centres: CircularKernels.Centres

    package init(_ configuration: EncoderConfiguration = EncoderConfiguration()) {
        self.configuration = configuration
        clock = configuration.clock
        centres = CircularKernels.Centres(count: configuration.timeKernels)
    }

    package func layout(for space: FeatureSpace) -> FeatureLayout {
        FeatureLayout(timeKernels: centres.count, contextCount: space.contextCount, targetCount: space.targetCount)
    }

    /// The previous target's weight after `gap` seconds, in [0, 1].
    package func previousWeight(gap: Double) -> Double {
        guard gap >= 0 else { return 0 }
        return Foundation.pow(0.5, gap / (configuration.previousHalfLifeMinutes * 60))
    }

    /// Writes the vector of one instant into `x` (which must hold `layout.dimension` values).
    ///
    /// - Parameters:
    ///   - contextColumns: the known context values in effect.
    ///   - previous: the latest target before `date` and when it happened, if any.
    /// - Complexity: O(dimension).
    package func encode(
        date: Date, utcOffset: Int?, contextColumns: [ContextColumn], previous: (target: TargetIndex, date: Date)?,
        layout: FeatureLayout, into x: UnsafeMutableBufferPointer<Double>
    ) {
        precondition(x.count >= layout.dimension, "feature buffer too small")
        encodeLeading(date: date, utcOffset: utcOffset, contextColumns: contextColumns, layout: layout, into: x)
        for i in layout.previous { x[i] = 0 }
        let previousWeight = weight(of: previous, at: date, layout: layout)
        if let previous, previousWeight > 0 { x[layout.column(previous: previous.target)] = previousWeight }
        x[layout.noPrevious] = 1 - previousWeight
    }

    /// Writes the columns before the previous-target block (bias, time, weekday,
    /// weekend, context) into `x[0 ..< layout.previous.lowerBound]`.
    /// - Complexity: O(time kernels + context columns), independent of the number of targets.
    package func encodeLeading(
        date: Date, utcOffset: Int?, contextColumns: [ContextColumn], layout: FeatureLayout, into x: UnsafeMutableBufferPointer<Double>
    ) {
        precondition(x.count >= layout.previous.lowerBound, "feature buffer too small")
        for i in 0 ..< layout.previous.lowerBound { x[i] = 0 }
        x[layout.bias] = 1
        let reading = clock.read(date, writtenOffset: utcOffset)
        writeTimeKernels(minuteOfDay: reading.minuteOfDay, into: x, at: layout.time.lowerBound)
        x[layout.weekday.lowerBound + reading.weekday] = 1
        x[layout.weekend.lowerBound + (reading.isWeekend ? 1 : 0)] = 1
        for column in contextColumns { x[layout.column(of: column)] = 1 }
    }

    /// The previous target's column value at `date` (0 when there is none or the layout does not know it).
    package func weight(of previous: (target: TargetIndex, date: Date)?, at date: Date, layout: FeatureLayout) -> Double {
        guard let previous, previous.target.rawValue < layout.targetCount else { return 0 }
        return previousWeight(gap: date.timeIntervalSince(previous.date))
    }

    /// The kernel weights (summing to 1) of a minute of the day.
    package func timeKernelWeights(minuteOfDay: Double) -> [Double] {
        var weights = [Double](repeating: 0, count: centres.count)
        weights.withUnsafeMutableBufferPointer { writeTimeKernels(minuteOfDay: minuteOfDay, into: $0, at: 0) }
        return weights
    }

    private func writeTimeKernels(minuteOfDay: Double, into x: UnsafeMutableBufferPointer<Double>, at start: Int) {
        CircularKernels.write(centres: centres, concentration: configuration.timeConcentration, minuteOfDay: minuteOfDay,
                              into: x, at: start)
    }

    /// The local time slice a kernel stands for, e.g. "07:00-08:00" for kernel 7 of 24.
    package func timeWindowLabel(kernel: Int) -> String {
        let spacing = 1440.0 / Double(centres.count)
        let centre = spacing * (Double(kernel) + 0.5)
        func clockText(_ minute: Double) -> String {
            Timestamp.clock(minuteOfDay: Int(((minute.truncatingRemainder(dividingBy: 1440)) + 1440).truncatingRemainder(dividingBy: 1440).rounded()))
        }
        return "\(clockText(centre - spacing / 2))-\(clockText(centre + spacing / 2))"
    }

    // MARK: Convenience

    /// The vector of a moment in `space`: its context's known values and the
    /// latest known target of `moment.recent` (or `fallbackPrevious`) before its date.
    package func encode(_ moment: Moment, in space: FeatureSpace, fallbackPrevious: (target: TargetIndex, date: Date)? = nil) -> [Double] {
        let layout = layout(for: space)
        var x = [Double](repeating: 0, count: layout.dimension)
        let previous = Self.previous(of: moment, in: space) ?? fallbackPrevious
        x.withUnsafeMutableBufferPointer {
            encode(date: moment.date, utcOffset: moment.utcOffset, contextColumns: space.columns(for: moment.context),
                   previous: previous, layout: layout, into: $0)
        }
        return x
    }

    /// The latest event of `moment.recent` at or before the moment whose target the space knows.
    package static func previous(of moment: Moment, in space: FeatureSpace) -> (target: TargetIndex, date: Date)? {
        // Usually the latest event (the last of equal dates) has a known target: one lookup. (Found by
        // position: holding each later event in turn would retain and release its target and context.)
        let recent = moment.recent
        var position = -1
        for i in recent.indices where recent[i].date <= moment.date && (position < 0 || recent[i].date >= recent[position].date) {
            position = i
        }
        guard position >= 0 else { return nil }
        let latest = recent[position]
        if let index = space.index(of: latest.target) { return (index, latest.date) }
        var best: (target: TargetIndex, date: Date)?
        for event in moment.recent where event.date <= moment.date {
            guard let index = space.index(of: event.target) else { continue }
            if best == nil || event.date >= best!.date { best = (index, event.date) }
        }
        return best
    }
}
