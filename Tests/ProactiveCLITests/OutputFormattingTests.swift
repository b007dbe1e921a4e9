import Foundation
@testable import ProactiveCLI
import Testing

/// The table helpers `suggest` prints with instead of Foundation's `padding(toLength:)` and `String(format:)`.
@Suite("output formatting")
struct OutputFormattingTests {
    @Test("padding counts characters and never cuts the text")
    func padding() {
        #expect(Output.padded("Open notes", 12) == "Open notes  ")
        #expect(Output.padded("Open notes", 4) == "Open notes")
        // NSString's padding counts UTF-16 units (the emoji is one character, two units): padded to 13 it lost its last letter.
        #expect(Output.padded("Order ☕️ latte", 15) == "Order ☕️ latte  ")
        #expect(Output.padded("Order ☕️ latte", 13) == "Order ☕️ latte")
    }

    @Test("decimals as printf writes them, the same as String(format:)")
    func decimals() {
        for value in [0.0, -0.0, 0.2836, 0.0005, 0.9995, 1.0 / 3, -2.5, 123_456.789, 1e-9, .nan, .infinity, -.infinity] {
            #expect(Output.fixed(value, 3) == String(format: "%.3f", value), "\(value)")
            #expect(Output.fixed(value, 2) == String(format: "%.2f", value), "\(value)")
        }
        #expect(Output.fixed(0.2836, 3) == "0.284")
        #expect(Output.fixed(.greatestFiniteMagnitude, 3).hasSuffix(".000"))
    }
}
