import Foundation
import Testing
@testable import ProactiveCore

/// The bundled sample (datasets/sample, made by scripts/make-sample.py) must stay
/// valid and canonical: every line decodes and re-encodes to the same bytes.
@Suite("Bundled sample data")
struct SampleDataTests {
    static let sampleDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("datasets/sample")

    @Test func everyLineIsCanonical() throws {
        let text = try String(contentsOf: Self.sampleDirectory.appendingPathComponent("donations.jsonl"), encoding: .utf8)
        let lines = text.split(separator: "\n")
        #expect(lines.count > 200)
        for (number, line) in lines.enumerated() {
            let donation = try DonationLineCodec.decode(String(line))
            #expect(DonationLineCodec.encode(donation) == String(line), "line \(number + 1)")
        }
    }

    @Test func definitionsValidateAndGroupTheDailyLatte() throws {
        let text = try String(contentsOf: Self.sampleDirectory.appendingPathComponent("definitions.json"), encoding: .utf8)
        let definitions = try IntentDefinitionSet(IntentDefinitionSet.parse(text))
        let resolver = TargetResolver(definitions: definitions)
        let donations = try String(contentsOf: Self.sampleDirectory.appendingPathComponent("donations.jsonl"), encoding: .utf8)
            .split(separator: "\n").map { try DonationLineCodec.decode(String($0)) }
        let lattes = Set(donations.filter { $0.parameters["item"] == .string("iced latte") }.map { resolver.target(for: $0).key })
        #expect(lattes == [TargetKey(rawValue: "com.example.coffee:OrderCoffeeIntent(item=iced latte,size=large)")])
    }
}
