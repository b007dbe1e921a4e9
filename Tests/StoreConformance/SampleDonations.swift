import Foundation
import ProactiveCore
import ProactiveStore

// MARK: - Sample donations

/// 2026-11-20T00:00:00Z, the day the samples happen.
public let sampleDay: Double = 1_795_132_800

/// A donation at `sampleDay + minutes`, with millisecond-exact dates.
public func sample(
    user: String = "u1", app: String = "com.example.weather", intent: String = "CheckWeatherIntent",
    minutes: Double = 0, identifier: String? = nil, group: String? = nil, count: Int = 1,
    parameters: [String: ParameterValue] = [:], context: [String: String] = [:], utcOffset: Int? = -8 * 3600
) -> Donation {
    Donation(user: user, app: app, intent: intent, parameters: parameters,
             date: Date(timeIntervalSince1970: sampleDay + minutes * 60), utcOffset: utcOffset,
             identifier: identifier, group: group, context: context, count: count)
}

extension DonationStore {
    /// Every donation in export order (small stores only).
    public func all(pageSize: Int = 3) throws -> [Donation] {
        var result: [Donation] = []
        try forEachDonation(pageSize: pageSize) { result.append($0) }
        return result
    }

    public func identifiers() throws -> [String] { try all().compactMap(\.identifier) }
}

/// The error a throwing expression produced, as a `StoreError`.
public func storeError(_ body: () throws -> Void) -> StoreError? {
    do { try body() } catch { return error as? StoreError }
    return nil
}
