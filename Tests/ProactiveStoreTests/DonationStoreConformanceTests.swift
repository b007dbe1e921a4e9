import Foundation
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

/// The contract every `DonationStore` meets (`DonationStoreConformance`), against each implementation here.
@Suite("DonationStore conformance")
struct DonationStoreConformanceTests {
    @Test(arguments: StoreKind.allCases, DonationStoreConformance.checks)
    func conformance(kind: StoreKind, check: DonationStoreConformance.Check) throws {
        let directory = try TemporaryDirectory()
        try check.run(kind.makeStore(in: directory))
    }
}
