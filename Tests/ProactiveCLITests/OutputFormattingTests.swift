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
        // Halves round to even on the exact binary value, as printf does: 0.125 is exact, 0.0625 too.
        #expect(Output.fixed(0.125, 2) == "0.12")
        #expect(Output.fixed(0.375, 2) == "0.38")
        #expect(Output.fixed(-0.0625, 3) == "-0.062")
        #expect(Output.fixed(2.5, 0) == "2" && Output.fixed(3.5, 0) == "4")
        var state: UInt64 = 29  // a 64-bit LCG (Knuth's MMIX constants): the same values every run
        func next() -> UInt64 { state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return state }
        for _ in 0..<20_000 {
            let value = Double(bitPattern: next() & ((1 << 52) - 1) | (((next() >> 33) % 70 + 960) << 52))  // 2^-63 ... 2^7, positive
            for places in 0...4 {
                let c = String(format: "%.\(places)f", value)
                #expect(Output.fixed(value, places) == c, "\(value) with \(places)")
                #expect(Output.fixed(-value, places) == "-" + c, "\(-value) with \(places)")
            }
        }
        #expect(Output.fixed(Double(1 << 52) + 0.5, 3) == String(format: "%.3f", Double(1 << 52) + 0.5))
        #expect(Output.fixed(.leastNonzeroMagnitude, 3) == "0.000" && Output.fixed(-.leastNonzeroMagnitude, 3) == "-0.000")
        #expect(Output.fixed(.greatestFiniteMagnitude, 3).hasSuffix(".000"))
    }
}
