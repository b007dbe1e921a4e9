import Foundation
import LinearAlgebra
import ProactiveCore
import ProactiveModels
import ProactiveRanking

// MARK: - One user at one moment, ready to suggest

/// Everything one `suggest` needs for a user with `targets` targets: the
/// fitted profile model (one matrix-vector product per moment), a ranker with
/// relevant-shortcut date windows and widget timelines, a Smart Stack of ten
/// widgets, and the moment (08:15 the morning after a year of history).
///
/// ```swift
/// let scenario = SuggestScenario(targets: 1_000)
/// var ranker = SuggestionRanker(ranker: scenario.ranker)
/// let top4 = scenario.suggest(with: &ranker)
/// ```
public struct SuggestScenario: Sendable {
    public let user: SyntheticUser
    public let events: [Event]
    public let model: ProfileModel
    public let ranker: Ranker
    public let moment: Moment
    /// Ten widgets: six static ones with timelines, four configured by popular targets (three with timelines).
    public let stack: SmartStack

    /// Training events: a year of history, 20 per target but at least 20,000.
    public static func eventCount(targets: Int) -> Int { max(20_000, 20 * targets) }

    public init(targets: Int, seed: UInt64 = 7) {
        user = SyntheticUser(targets: targets, seed: seed)
        events = user.events(count: Self.eventCount(targets: targets), days: 365)
        // Trainer defaults: the configuration the engine ships.
        model = ProfileModel(configuration: ProfileConfiguration(), events: events)
        let now = user.start.addingTimeInterval(365 * 86_400 + (8 * 60 + 15) * 60)
        moment = Moment(date: now, utcOffset: 0, context: ["focus": "work", "place": "work"], recent: Array(events.suffix(3)))

        var random = SeededGenerator.derived(seed: seed, 0xB3_0002)
        let declarations = Self.declarations(user: user, now: now, random: &random)
        ranker = Ranker(declarations: declarations.declarations, targets: user.targetsByKey)
        stack = SmartStack(widgets: declarations.stack)
    }

    // MARK: The measured operations

    /// One full suggestion: encode the moment, score every target (softmax
    /// probabilities, unsorted), fuse with windows and feedback, select and
    /// build the top 4.
    public func suggest(with suggestionRanker: inout SuggestionRanker) -> [Suggestion] {
        let distribution = model.distribution(at: moment)
        return suggestionRanker.suggest(distribution, moment: moment, k: 4)
    }

    /// One Smart Stack decision: score every target, then Smart Rotate and Widget Suggestions.
    public func decideStack(with engine: SmartStackEngine, state: inout StackState) -> StackDecision {
        let distribution = model.distribution(at: moment)
        return engine.step(stack, distribution: distribution, moment: moment, state: &state)
    }

    /// The shape of the scoring product: targets x columns of the profile's
    /// log-profile matrix (the feature vector plus one denominator column per
    /// feature group and per context key).
    public var scoringShape: (rows: Int, columns: Int) {
        (model.space.targetCount, model.layout.dimension + 4 + model.space.contextKeys.count)
    }

    /// The part of that matrix the engine multiplies densely: every column but
    /// the previous-target block (one column per target, at most one non-zero
    /// per moment, added as one contiguous row instead).
    public var denseShape: (rows: Int, columns: Int) {
        let shape = scoringShape
        return (shape.rows, shape.columns - model.space.targetCount)
    }

    // MARK: Declarations

    /// Eight relevant shortcuts (four with a window around `now`, four expired)
    /// for widgets configured by model targets, and timelines for the stack.
    static func declarations(user: SyntheticUser, now: Date, random: inout SeededGenerator)
        -> (declarations: Declarations, stack: [WidgetID]) {
        let count = user.targetCount
        func configured(_ t: Int, kind: String) -> WidgetID {
            let target = user.targets[t]
            return WidgetID(app: target.app, kind: kind,
                            configuration: WidgetConfiguration(intent: target.intent, parameters: target.parameters))
        }
        var sets: [String: [RelevantShortcut]] = [:]
        for i in 0 ..< 8 {
            let t = (3 + 37 * i) % count
            let widget = configured(t, kind: "bench.shortcut")
            let start = i < 4 ? now.addingTimeInterval(-1_800) : now.addingTimeInterval(-86_400)
            let window = RelevanceProvider.date(start: start, end: start.addingTimeInterval(3_600))
            sets[widget.app, default: []].append(RelevantShortcut(widget: widget, providers: [window]))
        }
        let shortcutSets = sets.keys.sorted().map {
            RelevantShortcutSet(app: $0, shortcuts: sets[$0]!, declaredAt: now.addingTimeInterval(-3_600))
        }
        var widgets = (0 ..< 6).map { WidgetID(app: "com.bench.widgets\($0)", kind: "static") }
        widgets += (0 ..< 4).map { configured(min($0 * 5, count - 1), kind: "bench.stack") }
        var timelines: [WidgetTimeline] = []
        let dayStart = now.addingTimeInterval(-(8 * 60 + 15) * 60)
        for widget in widgets.prefix(9) {
            let entries = (0 ..< 24).map { hour in
                TimelineEntry(date: dayStart.addingTimeInterval(Double(hour) * 3_600), score: (random.unit() * 100).rounded(),
                              duration: random.chance(0.5) ? 1_800 : 0)
            }
            timelines.append(try! WidgetTimeline(widget: widget, entries: entries))
        }
        let declarations = Declarations(shortcuts: RelevantShortcutRegistry(shortcutSets),
                                        timelines: WidgetTimelineRegistry(timelines))
        return (declarations, widgets)
    }
}

// MARK: - The raw BLAS product of the same shape

/// `cblas_sgemv` of a `rows` x `columns` single-precision matrix: the floor
/// the scoring step is compared with.
public typealias RawGemv = RawProduct<Float>
/// `cblas_dgemv` of the same shape in double precision: the product the
/// profile model computed while its log-profile matrix was `Double` (it is
/// `Float` now, summed in double precision by `proactive_weighted_columns`).
public typealias RawDgemv = RawProduct<Double>

/// A scalar type with a BLAS matrix-vector product.
public protocol GemvScalar: BinaryFloatingPoint, Sendable {
    static func gemv(rows: Int, columns: Int, a: UnsafeBufferPointer<Self>, x: UnsafeBufferPointer<Self>, y: UnsafeMutableBufferPointer<Self>)
}

extension Float: GemvScalar {
    public static func gemv(rows: Int, columns: Int, a: UnsafeBufferPointer<Float>, x: UnsafeBufferPointer<Float>, y: UnsafeMutableBufferPointer<Float>) {
        BLASKernels.sgemv(rows: rows, columns: columns, a: a, x: x, y: y)
    }
}

extension Double: GemvScalar {
    public static func gemv(rows: Int, columns: Int, a: UnsafeBufferPointer<Double>, x: UnsafeBufferPointer<Double>, y: UnsafeMutableBufferPointer<Double>) {
        BLASKernels.dgemv(rows: rows, columns: columns, a: a, x: x, y: y)
    }
}

/// y = A x for a seeded `rows` x `columns` matrix (entries in -0.5 ..< 0.5, x in 0 ..< 1).
public struct RawProduct<Scalar: GemvScalar>: Sendable {
    public let rows: Int
    public let columns: Int
    @usableFromInline let matrix: [Scalar]
    @usableFromInline let x: [Scalar]

    public init(rows: Int, columns: Int, seed: UInt64 = 11) {
        self.rows = rows
        self.columns = columns
        var random = SeededGenerator(seed: seed)
        matrix = (0 ..< rows * columns).map { _ in Scalar(random.unit() - 0.5) }
        x = (0 ..< columns).map { _ in Scalar(random.unit()) }
    }

    /// y = A x (y must hold `rows` values). Inlinable: specialised where it is timed.
    @inlinable
    public func run(into y: inout [Scalar]) {
        matrix.withUnsafeBufferPointer { a in
            x.withUnsafeBufferPointer { xBuffer in
                y.withUnsafeMutableBufferPointer { yBuffer in
                    Scalar.gemv(rows: rows, columns: columns, a: a, x: xBuffer, y: yBuffer)
                }
            }
        }
    }
}
