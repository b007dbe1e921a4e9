import Foundation

// MARK: - libFuzzer target: donation lines
//
// Built by dev/fuzz.sh together with Sources/ProactiveCore/*.swift into one
// module (`swiftc -sanitize=fuzzer,address -parse-as-library`), so this file
// calls the core directly without an import.
//
// Invariants checked on every input (a violation traps, libFuzzer saves the input):
// 1. `DonationLineCodec.decode` returns or throws; it never crashes, and an
//    error always names a reason.
// 2. JSON writer/parser agree: whatever `JSONParser` accepts, `JSONWriter`
//    writes back as text that parses to an equal value.
// 3. Round trip: a decoded donation encodes to a canonical line that decodes
//    to an equal donation, and that line is a fixed point of encode(decode(_)).
//    Equality treats `utcOffset == nil` (Unix seconds) as 0, the documented
//    equivalence (LocalClock reads a missing offset as UTC; the canonical line
//    writes both as `Z`).
// 4. Target resolution without definitions accepts every decoded donation.

@_cdecl("LLVMFuzzerTestOneInput")
public func donationLineFuzzInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    checkJSONRoundTrip(bytes)
    let donation: Donation
    do {
        donation = try DonationLineCodec.decode(bytes)
    } catch {
        if error.reason.isEmpty { fuzzFailure("empty error reason", bytes) }
        return 0
    }
    let line = DonationLineCodec.encode(donation)
    let again: Donation
    do {
        again = try DonationLineCodec.decode(line)
    } catch {
        fuzzFailure("canonical line \(line) does not decode: \(error)", bytes)
    }
    var expected = donation
    expected.utcOffset = donation.utcOffset ?? 0
    if again != expected {
        fuzzFailure("round trip changed the donation:\n  first  \(donation) at \(donation.date.timeIntervalSince1970)\n  second \(again) at \(again.date.timeIntervalSince1970)\n  line   \(line)", bytes)
    }
    let fixedPoint = DonationLineCodec.encode(again)
    if fixedPoint != line { fuzzFailure("canonical line is not a fixed point:\n  \(line)\n  \(fixedPoint)", bytes) }
    let target = TargetResolver(definitions: IntentDefinitionSet()).target(for: donation)
    if target.app != donation.app { fuzzFailure("target of another app: \(target.key)", bytes) }
    return 0
}
