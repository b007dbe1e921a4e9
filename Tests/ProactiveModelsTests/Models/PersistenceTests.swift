import Foundation
import ProactiveCore
@testable import ProactiveModels
import Testing

@Suite("Model persistence")
struct PersistenceTests {
    static let bytes: [UInt8] = {
        try! BlendTrainer().fit(TrainingSet(events: Fixtures.routine(days: 14))).serialized()
    }()

    @Test func headerNamesKindAndVersion() throws {
        #expect(Array(Self.bytes.prefix(4)) == Array("PRXM".utf8))
        let opened = try ModelArchive.open(Self.bytes)
        #expect(opened.kind == "blend")
        #expect(try ModelArchive.decodeAny(Self.bytes).name == "blend")
    }

    @Test func flippedByteIsAChecksumError() {
        // Header: magic 4 + version 2 + kind (4 + 5) + parts 1 + payload length 8 = 24 bytes; flips after it hit the payload.
        for position in stride(from: 24, to: Self.bytes.count - 8, by: max(1, Self.bytes.count / 50)) {
            var corrupt = Self.bytes
            corrupt[position] ^= 0x40
            do {
                _ = try BlendModel(serialized: corrupt)
                Issue.record("a flipped byte at \(position) was accepted")
            } catch {
                // Typed throws: `error` is a ModelFormatError.
                if case .checksumMismatch = error {} else { Issue.record("unexpected \(error)") }
            }
        }
    }

    @Test func truncationAtAnyLengthThrows() {
        for length in [0, 3, 4, 6, 12, 20, Self.bytes.count / 2, Self.bytes.count - 1] {
            #expect(throws: ModelFormatError.self) { try BlendModel(serialized: Array(Self.bytes.prefix(length))) }
        }
    }

    @Test func foreignVersionMagicAndKind() throws {
        var future = Self.bytes
        future[4] = UInt8(ModelArchive.formatVersion + 1)
        #expect(throws: ModelFormatError.unsupportedVersion(found: ModelArchive.formatVersion + 1, supported: ModelArchive.formatVersion)) {
            try BlendModel(serialized: future)
        }
        #expect(throws: ModelFormatError.notAModel) { try BlendModel(serialized: Array("{\"json\": true}".utf8)) }
        #expect(throws: ModelFormatError.wrongKind(expected: "profile", found: "blend")) { try ProfileModel(serialized: Self.bytes) }
        #expect(ModelFormatError.unsupportedVersion(found: 9, supported: 2).description.contains("retrain"))
    }

    @Test func checksummedGarbageIsInvalidNotACrash() {
        // A well-formed envelope around a payload of nonsense: decoding must throw, not trap.
        var random = SeededGenerator(seed: 3)
        for size in [0, 1, 16, 200, 5000] {
            var writer = ByteWriter()
            writer.append(ModelArchive.magic)
            writer.write(UInt16(ModelArchive.formatVersion))
            writer.write("profile")
            writer.write(false)  // in one piece
            writer.write(UInt64(size))
            writer.append((0 ..< size).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            writer.write(ModelArchive.checksum(writer.bytes[...], version: ModelArchive.formatVersion))
            #expect(throws: ModelFormatError.self) { try ProfileModel(serialized: writer.bytes) }
        }
    }

    /// `forEachUse` hands over the same uses, in the same order, from a saved log's records read in place
    /// as from its decoded events (with newer events after them), only of the targets asked; and a
    /// loaded model explains itself (the reasons read the log that way) with the same reasons as the model
    /// it was saved from, without decoding its log.
    @Test func usesReadInPlaceMatchTheEvents() throws {
        let events = Fixtures.routine(days: 21)
        let cut = events.count - 5
        var original = try BlendTrainer().fit(TrainingSet(events: Array(events[..<cut])))
        var loaded = try BlendModel(serialized: original.serialized())
        for event in events[cut...] {
            original.update(with: event)
            loaded.update(with: event)
        }
        #expect(loaded.profile.log.holdsUndecodedEvents)
        let at = Moment(date: events.last!.date.addingTimeInterval(3600), utcOffset: 0, context: ["focus": "work"])
        let targets = ["mail", "coffee", "music", "game"].map(Fixtures.target)
        let describe: (TargetKey) -> String = { $0.rawValue }
        #expect(loaded.reasons(for: targets, at: at, describe: describe, limit: 5) == original.reasons(for: targets, at: at, describe: describe, limit: 5))
        #expect(loaded.profile.log.holdsUndecodedEvents, "explaining decodes nothing")
        let space = loaded.profile.space
        let mail = try #require(space.index(of: Fixtures.target("mail"))), music = try #require(space.index(of: Fixtures.target("music")))
        var wanted = [Bool](repeating: false, count: space.targetCount)
        (wanted[mail.rawValue], wanted[music.rawValue]) = (true, true)
        var inPlace: [LoggedUse] = []
        loaded.profile.log.forEachUse(of: wanted) { inPlace.append($0) }
        #expect(loaded.profile.log.holdsUndecodedEvents)
        let expected = loaded.profile.log.events.filter { wanted[$0.target.rawValue] }
            .map(\.use)
        #expect(inPlace.count == events.filter { $0.target.rawValue == "mail" || $0.target.rawValue == "music" }.count)
        #expect(inPlace == expected)
        var decoded: [LoggedUse] = []
        loaded.profile.log.forEachUse(of: wanted) { decoded.append($0) }
        #expect(!loaded.profile.log.holdsUndecodedEvents)
        #expect(decoded == expected)
    }

    /// A loaded model keeps its saved events undecoded through queries at the newest moment and
    /// folds of newer events, and behaves exactly like the model it was saved from: same
    /// probabilities and bytes after the same folds, after an out-of-order event and after forgetting.
    @Test func loadedLogIsDecodedOnlyWhenNeeded() throws {
        let events = Fixtures.routine(days: 21)
        let cut = events.count * 3 / 4
        var original = try BlendTrainer().fit(TrainingSet(events: Array(events[..<cut])))
        var loaded = try BlendModel(serialized: original.serialized())
        #expect(loaded.profile.log.holdsUndecodedEvents)
        #expect(loaded.profile.log.count == original.profile.log.count)
        func same(_ label: String) {
            let at = Moment(date: loaded.profile.log.last!.date.addingTimeInterval(600), utcOffset: 0, context: ["place": "home"])
            #expect(loaded.distribution(at: at).probabilities == original.distribution(at: at).probabilities, "\(label)")
            #expect(loaded.serialized() == original.serialized(), "\(label)")
        }
        same("loaded")
        for event in events[cut...] {
            original.update(with: event)
            loaded.update(with: event)
        }
        #expect(loaded.profile.log.holdsUndecodedEvents, "folding newer events decodes nothing")
        same("after folding newer events")
        #expect(loaded.profile.log.events.count == original.profile.log.count)
        #expect(!loaded.profile.log.holdsUndecodedEvents, "reading the events decodes them, in place of the records")
        same("after decoding")
        let late = events[cut / 2]
        var early = late
        early.date = late.date.addingTimeInterval(-60)
        original.update(with: early)
        loaded.update(with: early)
        #expect(!loaded.profile.log.holdsUndecodedEvents)
        same("after an out-of-order event")
        var reloaded = try BlendModel(serialized: loaded.serialized())
        #expect(original.remove(events[10]) && reloaded.remove(events[10]))
        loaded = reloaded
        same("after forgetting")
        let again = try BlendModel(serialized: original.serialized())
        #expect(again.profile.log.events.elementsEqual(original.profile.log.events))
    }

    /// A fold's run of updates with a clock memo (`update(with:memo:)`, what live models use) learns exactly
    /// what plain updates learn: the same bytes after newer events, events older than the newest (each
    /// replays the usage state: the memo's path), events at the same instant under another offset, and a
    /// weight refit; and the memo was used (it holds every learned instant after a replay).
    @Test func memoizedFoldLearnsExactlyWhatPlainUpdatesLearn() throws {
        let events = Fixtures.routine(days: 21)
        let cut = events.count * 3 / 4
        var plain = try BlendTrainer().fit(TrainingSet(events: Array(events[..<cut])))
        var memoized = try BlendModel(serialized: plain.serialized())
        var run: [Event] = []
        for (index, event) in events[cut...].enumerated() {
            run.append(event)
            var early = events[(index * 7) % cut]
            early.date = early.date.addingTimeInterval(-90)
            run.append(early)  // older than the newest learned event
            if index % 5 == 0 {
                var elsewhere = event
                elsewhere.utcOffset = (event.utcOffset ?? 0) + 3600  // same instant, another clock reading
                run.append(elsewhere)
            }
        }
        #expect(run.count > plain.configuration.refitEvery, "the run spans a weight refit")
        let memo = ClockMemo()
        for (index, event) in run.enumerated() {
            plain.update(with: event)
            memoized.update(with: event, memo: memo)
            if index % 25 == 0 {
                let same = memoized.serialized() == plain.serialized()  // a Bool: a failure does not print the bytes
                #expect(same, "after \(index + 1) events")
            }
        }
        let same = memoized.serialized() == plain.serialized()
        #expect(same)
        #expect(memoized.weights == plain.weights)
        let learned = Set(plain.profile.log.events.map { ClockMemo.Key(date: $0.date.timeIntervalSinceReferenceDate.bitPattern, utcOffset: $0.utcOffset) })
        #expect(learned.isSubset(of: Set(memo.inputs.keys)), "the replays went through the memo")
        let at = Moment(date: plain.profile.log.last!.date.addingTimeInterval(600), utcOffset: 0, context: ["place": "home"])
        #expect(memoized.distribution(at: at).probabilities == plain.distribution(at: at).probabilities)
    }

    /// Blend states saved before format 11 have no weight on no Focus (nor, before 10, the habit-rate
    /// signal's state): they are refused with an error naming their format, which the engine answers by
    /// refitting the user.
    @Test func blendStatesBeforeTheWeightOnNoFocusAreRefused() throws {
        let model = try BlendModel(serialized: Self.bytes)
        for version in 5 ... 10 {
            let old = ModelArchive.encode(model, version: version)
            #expect(old[4] == UInt8(version))
            #expect { try BlendModel(serialized: old) } throws: { error in
                "\(error)".contains("saved in model format \(version), before the weight on no Focus")
            }
        }
    }

    /// A logistic state trained before format 7 (every entry of its previous-target block non-zero, saved
    /// in full by format 6) loads with every entry.
    @Test func versionSixLogisticStatesStillLoad() throws {
        let model = try BlendModel(serialized: Self.bytes)
        var logistic = try #require(model.logistic)
        var random = SeededGenerator(seed: 11)
        let full = (0 ..< logistic.weights.rows * logistic.weights.dimension).map { _ in random.gaussian(deviation: 0.3) }
        logistic.weights = SparseBlockMatrix(full: full, layout: logistic.layout)
        let loaded = try LogisticModel(serialized: ModelArchive.encode(logistic, version: 6))
        #expect(loaded.expandedWeights == full)
        for day in [13, 14] {
            let at = Fixtures.moment(day: day, hour: 8.2, recent: [Fixtures.event("weather", day: day, hour: 8)])
            #expect(loaded.logScores(at: at) == logistic.logScores(at: at))
        }
        #expect(try LogisticModel(serialized: loaded.serialized()).expandedWeights == full)
    }

    /// The previous-target blocks (profile counts, its log-profile matrix, logistic weights) hold
    /// only the pairs that occurred, in memory and in the saved state: for 150 targets and 450
    /// events, at most 450 of the 22,500 entries.
    @Test func previousTargetBlocksKeepOnlyPairsThatOccurred() throws {
        var random = SeededGenerator(seed: 12)
        let targets = 150
        var events: [Event] = []
        for i in 0 ..< 3 * targets {
            let name = i < targets ? "app\(i)" : "app\(Int(random.next() % UInt64(targets)))"
            events.append(Fixtures.event(name, day: i / 60, hour: 6 + Double(i % 60) * 0.25))
        }
        let model = try BlendTrainer().fit(TrainingSet(events: events))
        #expect(model.profile.space.targetCount == targets)
        let pairs = Set(zip(model.profile.log.events, model.profile.log.events.dropFirst()).map { [$1.target.rawValue, $0.target.rawValue] })
        #expect(model.profile.counts.storedPairs <= pairs.count)
        #expect(model.profile.logProfile.storedTransitions <= pairs.count)
        let logistic = try #require(model.logistic)
        #expect(logistic.weights.storedPairs <= pairs.count)
        for p in 0 ..< targets {
            for row in model.profile.counts.previous[p].keys { #expect(pairs.contains([row, p]), "profile pair \(row) after \(p)") }
            for row in logistic.weights.previous[p].keys { #expect(pairs.contains([row, p]), "logistic pair \(row) after \(p)") }
        }
        let bytes = model.serialized()
        // Format 6 wrote both blocks in full (2 x targets x targets doubles); format 7 the pairs only.
        let saved = ModelArchive.encode(model, version: 6).count - ModelArchive.encode(model, version: 7).count
        #expect(saved >= 2 * targets * targets * 8 - 2 * (pairs.count + targets) * 16, "\(saved) bytes fewer")
        let again = try BlendModel(serialized: bytes)
        #expect(again.serialized() == bytes)
        let at = Fixtures.moment(day: 15, hour: 9, recent: [Fixtures.event("app7", day: 15, hour: 8.9)])
        #expect(again.distribution(at: at).probabilities == model.distribution(at: at).probabilities)
    }

    /// Reading a saved log checks the canonical order (time, then target key, context and weight) and
    /// counts each target's events and each context column's uses in the same scan; events that
    /// share a time are compared in full, others by time alone.
    @Test func savedLogIsCheckedInOneScan() throws {
        let space = FeatureSpace(targets: [TargetKey(rawValue: "b"), TargetKey(rawValue: "a")],
                                 contextValues: [ContextValue(key: "place", value: "home"), ContextValue(key: "focus", value: "work")])
        func event(_ target: Int, _ time: Double, _ context: [Int] = [], weight: Double = 1) -> LoggedEvent {
            LoggedEvent(target: TargetIndex(target), time: time, utcOffset: time == 20 ? 3600 : nil, context: context.map(ContextColumn.init),
                        weight: weight)
        }
        func read(_ events: [LoggedEvent]) throws(ModelFormatError) -> EventLog {
            var writer = ByteWriter()
            writer.write(UInt64(events.count))
            for event in events {
                var one = ByteWriter()
                EventLog(events: [event], space: space).encode(into: &one, space: space)
                writer.append(Array(one.bytes.dropFirst(8)))  // the record without its log's count
            }
            var reader = ByteReader(writer.bytes)
            return try EventLog(reader: &reader, space: space)
        }
        // Pairs that share a time differ by target key, context or weight.
        let events = [event(0, 10), event(1, 10, [1]), event(0, 20, [0, 1]), event(0, 20, [1]), event(0, 30), event(0, 30, weight: 0.5)]
        let ordered = Array(EventLog(events: events, space: space).events)
        #expect(ordered.map(\.time) == [10, 10, 20, 20, 30, 30])
        let log = try read(ordered)
        #expect(log.count == 6)
        #expect(log.last == ordered[5])
        #expect(log.uses(targets: 2, columns: 2).events == [5, 1])
        #expect(log.uses(targets: 2, columns: 2).context == [1, 3])
        #expect(Array(log.events) == ordered)
        for position in 1 ..< ordered.count {
            var swapped = ordered
            swapped.swapAt(position - 1, position)
            #expect(throws: ModelFormatError.invalid(field: "log", reason: "events are not in canonical order (at \(position))")) {
                try read(swapped)
            }
        }
        #expect(try read([]).isEmpty)
        // Each field is checked where it lies: an index out of range, a weight that is not positive, a cut record.
        func corrupt(_ change: (inout [UInt8]) -> Void) throws(ModelFormatError) -> EventLog {
            var bytes = ByteWriter()
            EventLog(events: ordered, space: space).encode(into: &bytes, space: space)
            var raw = bytes.bytes
            change(&raw)
            var reader = ByteReader(raw)
            return try EventLog(reader: &reader, space: space)
        }
        #expect(throws: ModelFormatError.invalid(field: "log.target", reason: "index 7 outside 0..<2")) { try corrupt { $0[8] = 7 } }
        #expect(throws: ModelFormatError.invalid(field: "log.utcOffset", reason: "flag byte 2 is neither 0 nor 1")) { try corrupt { $0[8 + 12] = 2 } }
        #expect(throws: ModelFormatError.invalid(field: "log.weight", reason: "must be positive")) {
            try corrupt { raw in for i in 0 ..< 8 { raw[8 + 21 + 4 * Int(raw[8 + 17]) + i] = 0 } }  // after the first record's columns
        }
        #expect(throws: ModelFormatError.self) { try corrupt { $0.removeLast() } }
    }

    /// Format 12 writes the blend's training rows last, at the end of the heavy part, and keeps the length and
    /// checksum of what comes before them: that prefix reads alone into a model that scores and explains as
    /// the whole one, without rows. A prefix of another length, or from a format-11 state, is refused; format-11
    /// states still load whole, with their rows.
    @Test func theHeavyPartReadsWithoutItsRows() throws {
        let model = try BlendModel(serialized: Self.bytes)
        #expect(!model.rows.labels.isEmpty)
        let (light, heavy) = model.serializedParts()
        let length = try #require(ModelArchive.heavyPrefixLength(of: light))
        #expect(length > 0 && length < heavy.count)
        let prefix = Array(heavy.prefix(length))
        let explaining = try #require(try ModelArchive.decodeWithoutTail(light, heavyPrefix: prefix) as? BlendModel)
        #expect(explaining.rows.labels.isEmpty && explaining.profile.log.count == model.profile.log.count)
        for day in [13, 14] {
            let at = Fixtures.moment(day: day, hour: 8.2, recent: [])
            #expect(explaining.distribution(at: at).probabilities == model.distribution(at: at).probabilities)
            let targets = model.distribution(at: at).top(3).map(\.target)
            #expect(explaining.reasons(for: targets, at: at, describe: \.rawValue, limit: 3).map { $0.map(\.text) }
                    == model.reasons(for: targets, at: at, describe: \.rawValue, limit: 3).map { $0.map(\.text) })
        }
        #expect { try ModelArchive.decodeWithoutTail(light, heavyPrefix: Array(prefix.dropLast())) } throws: {
            "\($0)".contains("not the start of the one saved with this light part")
        }
        let (oldLight, oldHeavy) = ModelArchive.encodeParts(model, version: 11, split: true)
        #expect(ModelArchive.heavyPrefixLength(of: oldLight) == nil && ModelArchive.heavyPrefixLength(of: Self.bytes) == nil)
        #expect { try ModelArchive.decodeWithoutTail(oldLight, heavyPrefix: oldHeavy) } throws: { "\($0)".contains("before 12") }
        let old = try #require(try ModelArchive.decodeAny(oldLight, heavy: oldHeavy) as? BlendModel)
        #expect(old.rows == model.rows && old.serialized() == model.serialized())
    }

    @Test func laneHashSeesEveryByte() {
        var random = SeededGenerator(seed: 5)
        for size in [0, 7, 31, 32, 33, 100, 1000] {
            let bytes = (0 ..< size).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let base = FNV1a64.laneHash(bytes)
            #expect(FNV1a64.laneHash(bytes[...]) == base)
            for position in 0 ..< size {
                var flipped = bytes
                flipped[position] ^= 0x01
                #expect(FNV1a64.laneHash(flipped) != base, "a flip at \(position) of \(size) went unseen")
            }
        }
    }

    @Test func fnvKnownValues() {
        #expect(FNV1a64.hash([UInt8]()) == 0xcbf2_9ce4_8422_2325)
        #expect(FNV1a64.hash(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
    }
}
