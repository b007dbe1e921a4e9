import Foundation

// MARK: - libFuzzer target: declarations (relevant shortcuts, widget timelines, feedback)
//
// Built by dev/fuzz.sh with Sources/ProactiveCore/*.swift and the
// declaration and feedback codecs of ProactiveRanking in one module.
//
// Invariants checked on every input (issue 16: a stored declaration must
// always read back, and no declared number may overflow later):
// 1. Each codec returns or throws a `DeclarationError` with a reason; never crashes.
// 2. What is accepted is stored at any offset the store uses (UTC-12...+14)
//    and that stored text decodes again, to text that is a fixed point.
// 3. Every accepted date, window end and timeline entry end is an instant of
//    the supported years, and every score is finite and bounded.

let declaredAt = Date(timeIntervalSince1970: 1_795_705_331)
let offsets = [0, -12 * 3600, -8 * 3600, 5 * 3600 + 45 * 60, 14 * 3600]

@_cdecl("LLVMFuzzerTestOneInput")
public func declarationFuzzInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)
    checkShortcuts(text, bytes)
    checkTimelines(text, bytes)
    checkFeedback(text, bytes)
    return 0
}

func checkReason(_ error: DeclarationError, _ bytes: UnsafeRawBufferPointer) {
    if error.reason.isEmpty { fuzzFailure("empty error reason at \(error.path)", bytes) }
}

func checkInstant(_ date: Date, _ what: String, _ bytes: UnsafeRawBufferPointer) {
    if !Timestamp.isSupported(date.timeIntervalSince1970) { fuzzFailure("\(what) \(date.timeIntervalSince1970) is outside the supported years", bytes) }
}

func checkShortcuts(_ text: String, _ bytes: UnsafeRawBufferPointer) {
    // As a file naming its app, else as a bare array for an app given on the command line.
    var decoded: RelevantShortcutSet?
    for app in [nil, "com.fuzz"] where decoded == nil {
        do { decoded = try RelevantShortcutCodec.decode(text, app: app, declaredAt: declaredAt) } catch { checkReason(error, bytes) }
    }
    guard let set = decoded else { return }
    for shortcut in set.shortcuts {
        for provider in shortcut.providers {
            if case let .date(start, end) = provider {
                checkInstant(start, "window start", bytes)
                checkInstant(end, "window end", bytes)
                if !(end > start) { fuzzFailure("empty window", bytes) }
            }
        }
    }
    for offset in offsets {
        let stored = RelevantShortcutCodec.encodeShortcuts(set.shortcuts, utcOffset: offset)
        do {
            let again = try RelevantShortcutCodec.decode(stored, app: set.app, declaredAt: declaredAt)
            let fixed = RelevantShortcutCodec.encodeShortcuts(again.shortcuts, utcOffset: offset)
            if fixed != stored { fuzzFailure("stored shortcuts are not a fixed point:\n  \(stored)\n  \(fixed)", bytes) }
        } catch {
            fuzzFailure("stored shortcuts at offset \(offset) do not read back (\(error)): \(stored.prefix(300))", bytes)
        }
    }
}

func checkTimelines(_ text: String, _ bytes: UnsafeRawBufferPointer) {
    let timelines: [WidgetTimeline]
    do { timelines = try WidgetTimelineCodec.decode(text) } catch {
        checkReason(error, bytes)
        return
    }
    for timeline in timelines {
        for entry in timeline.entries {
            checkInstant(entry.date, "entry date", bytes)
            if let relevance = entry.relevance {
                if !(relevance.score.isFinite && relevance.score <= WidgetTimeline.maximumEntryScore) { fuzzFailure("score \(relevance.score)", bytes) }
                checkInstant(entry.date.addingTimeInterval(relevance.duration), "entry end", bytes)
            }
            _ = timeline.reading(at: entry.date)
        }
        for offset in offsets {
            let stored = WidgetTimelineCodec.encode(timeline, utcOffset: offset)
            do {
                let again = try WidgetTimelineCodec.decode(stored)
                guard again.count == 1 else { fuzzFailure("one stored timeline decodes as \(again.count)", bytes) }
                let fixed = WidgetTimelineCodec.encode(again[0], utcOffset: offset)
                if fixed != stored { fuzzFailure("stored timeline is not a fixed point:\n  \(stored)\n  \(fixed)", bytes) }
            } catch {
                fuzzFailure("stored timeline at offset \(offset) does not read back (\(error)): \(stored.prefix(300))", bytes)
            }
        }
    }
}

func checkFeedback(_ text: String, _ bytes: UnsafeRawBufferPointer) {
    let event: FeedbackEvent
    do { event = try FeedbackCodec.decode(text) } catch {
        checkReason(error, bytes)
        return
    }
    checkInstant(event.date, "feedback date", bytes)
    for offset in offsets {
        let stored = FeedbackCodec.encode(event, utcOffset: offset)
        do {
            let fixed = FeedbackCodec.encode(try FeedbackCodec.decode(stored), utcOffset: offset)
            if fixed != stored { fuzzFailure("stored feedback is not a fixed point:\n  \(stored)\n  \(fixed)", bytes) }
        } catch {
            fuzzFailure("stored feedback at offset \(offset) does not read back (\(error)): \(stored.prefix(300))", bytes)
        }
    }
}
