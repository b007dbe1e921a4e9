import Foundation
import ProactiveCore
@testable import ProactiveModels
import Testing

/// A model saved in two parts (format 9): the light part a query reads, the heavy part (training
/// rows, log records) only learning reads; read back together they are the model, read alone the
/// light part scores moments after the newest event exactly as the whole model does.
@Suite("Model persistence: split parts")
struct SplitPartsTests {
    static let events = Fixtures.routine(days: 21)
    static let model: BlendModel = try! BlendTrainer().fit(TrainingSet(events: Array(events.dropLast(10))))

    @Test func partsReadBackTogetherAreTheModel() throws {
        let (light, heavy) = Self.model.serializedParts()
        #expect(ModelArchive.isLightPart(light) && !ModelArchive.isLightPart(Self.model.serialized()))
        // The rows and the records are in the heavy part: most of the bytes.
        #expect(heavy.count > light.count * 2, "light \(light.count), heavy \(heavy.count)")
        #expect(light.count + heavy.count < Self.model.serialized().count + 4_096)
        var whole = try #require(try ModelArchive.decodeAny(light, heavy: heavy) as? BlendModel)
        #expect(whole.serialized() == Self.model.serialized())
        #expect(whole.serializedParts() == (light, heavy))
        var original = Self.model
        for event in Self.events.suffix(10) {
            whole.update(with: event)
            original.update(with: event)
        }
        #expect(whole.serialized() == original.serialized(), "the rows and the log learn on as in the original")
    }

    @Test func theLightPartAloneScoresMomentsAfterTheNewestEvent() throws {
        let scoring = try #require(try ModelArchive.decodeForScoring(Self.model.serializedParts().light) as? BlendModel)
        let newest = try #require(Self.model.profile.log.last).date
        for minutes: Double in [0, 10, 95, 60 * 20] {
            for context: [String: String] in [["place": "home"], [:], ["place": "work"]] {
                let at = Moment(date: newest.addingTimeInterval(minutes * 60), utcOffset: 0, context: context)
                #expect(scoring.distribution(at: at).probabilities == Self.model.distribution(at: at).probabilities)
                #expect(scoring.activityLevel(at: at) == Self.model.activityLevel(at: at))
            }
        }
        #expect(scoring.profile.log.count == Self.model.profile.log.count)
        #expect(scoring.profile.eventCounts == Self.model.profile.eventCounts)
        #expect(scoring.rows.count == 0 && Self.model.rows.count > 0)
    }

    /// A light part never takes another save's heavy part, and is never read alone by mistake.
    @Test func partsOfDifferentSavesAreRefused() throws {
        var other = Self.model
        other.update(with: Self.events.last!)
        let (light, heavy) = Self.model.serializedParts()
        let (_, otherHeavy) = other.serializedParts()
        #expect(otherHeavy != heavy)
        #expect { try ModelArchive.decodeAny(light, heavy: otherHeavy) } throws: { "\($0)".contains("heavy part: not the one saved with this light part") }
        #expect { try ModelArchive.decodeAny(light) } throws: { "\($0)".contains("heavy part: missing") }
        #expect { try BlendModel(serialized: light) } throws: { "\($0)".contains("heavy part: missing") }
        #expect { try ModelArchive.decodeAny(Self.model.serialized(), heavy: heavy) } throws: { "\($0)".contains("saved in one piece") }
        var truncated = heavy
        truncated.removeLast()
        #expect(throws: ModelFormatError.self) { try ModelArchive.decodeAny(light, heavy: truncated) }
    }

    /// Format 8 (one piece, no parts byte): a profile still loads, to the same model; a blend of then has
    /// no habit-rate signal nor weight on no Focus and is refused (the engine refits it). The current format in one piece reads whole.
    @Test func formatEightStillLoads() throws {
        let profile = Self.model.profile
        let old = ModelArchive.encode(profile, version: 8)
        #expect(old[4] == 8)
        #expect(try ProfileModel(serialized: old).serialized() == profile.serialized())
        #expect { try BlendModel(serialized: ModelArchive.encode(Self.model, version: 8)) } throws: { error in
            "\(error)".contains("before the weight on no Focus")
        }
        let onePiece = ModelArchive.encode(Self.model)
        #expect(try ModelArchive.decodeForScoring(onePiece).serialized() == Self.model.serialized(), "a model in one piece reads whole")
    }

    /// The profile and the logistic model split their logs too.
    @Test func profileAndLogisticSplit() throws {
        let training = TrainingSet(events: Array(Self.events.prefix(200)))
        let profile = try ProfileTrainer().fit(training)
        let (light, heavy) = profile.serializedParts()
        #expect(try ModelArchive.decodeAny(light, heavy: heavy).serialized() == profile.serialized())
        let logistic = try #require(Self.model.logistic)
        let parts = logistic.serializedParts()
        #expect(try ModelArchive.decodeAny(parts.light, heavy: parts.heavy).serialized() == logistic.serialized())
        let newest = try #require(profile.log.last).date
        let at = Moment(date: newest.addingTimeInterval(900), utcOffset: 0, context: ["place": "home"])
        #expect(try ModelArchive.decodeForScoring(light).distribution(at: at).probabilities == profile.distribution(at: at).probabilities)
    }
}
