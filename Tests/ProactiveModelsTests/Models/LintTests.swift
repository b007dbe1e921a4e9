import Foundation
import ProactiveCore
@testable import ProactiveLab
@testable import ProactiveModels
import Testing

@Suite("Donation lint")
struct LintTests {
    static func donation(_ parameters: [String: ParameterValue], day: Int) -> Donation {
        Donation(app: "com.example.notes", intent: "OpenNote", parameters: parameters, date: Fixtures.date(day: day, hour: 9))
    }

    @Test func flagsTimestampsAndUniqueIdsButNotRepeatingValues() {
        let donations = (0 ..< 12).map { day in
            Self.donation(["note": .entity(id: "note-\(day % 3)", display: nil), "createdAt": .int(1_767_571_200 + Int64(day) * 86_400),
                           "requestId": .string("req-\(day * 7919)"), "stamp": .string("2026-01-\(10 + day)")], day: day)
        }
        let warnings = DonationLint().check(donations, definitions: IntentDefinitionSet())
        #expect(warnings.map(\.parameter) == ["createdAt", "requestId", "stamp"])
        #expect(warnings.map(\.kind) == [.timestampLike, .neverRepeats, .timestampLike])
        #expect(warnings.allSatisfy { $0.distinctValues == 12 && $0.donations == 12 && $0.decidesTargets })
        #expect(warnings[1].description.hasPrefix("com.example.notes OpenNote: parameter \"requestId\" never repeats (12 distinct values in 12 donations)"))
    }

    @Test func smallSamplesAreNotJudged() {
        let donations = (0 ..< 3).map { Self.donation(["id": .string("x\($0)")], day: $0) }
        #expect(DonationLint().check(donations, definitions: IntentDefinitionSet()).isEmpty)
    }

    @Test func timestampDetection() {
        #expect(DonationLint.looksLikeTimestamp(.string("2026-11-20T07:30:00Z")))
        #expect(DonationLint.looksLikeTimestamp(.string("2026-11-20")))
        #expect(DonationLint.looksLikeTimestamp(.int(1_767_571_200_000)))
        #expect(!DonationLint.looksLikeTimestamp(.int(42)))
        #expect(!DonationLint.looksLikeTimestamp(.string("large")))
        #expect(!DonationLint.looksLikeTimestamp(.bool(true)))
    }
}
