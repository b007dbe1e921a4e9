import Foundation
import ProactiveCore
import ProactiveStore
import Synchronization

// MARK: - Retention after donations, without a sweep per batch

/// When the service applies the retention policy after storing donations.
///
/// `donate` and `import` apply it after every write; a service taking batches
/// many times a second would scan the donation table for every one. Here a
/// batch holding a donation already older than its app's window is swept at
/// once (nothing acknowledged stays past its window), and otherwise the policy
/// is applied at most once per `interval`: a stored donation outlives its
/// window by at most that long (windows are whole days). A policy that keeps
/// everything costs one read of the policy.
public final class RetentionSweeper: Sendable {
    public let interval: Duration
    private let lastSweep = Mutex<ContinuousClock.Instant?>(nil)

    public init(interval: Duration = .seconds(60)) {
        self.interval = interval
    }

    /// Whether to apply the policy now, after storing `donations` at `now`.
    public func isDue(after donations: some Sequence<Donation>, policy: RetentionPolicy, now: Date) -> Bool {
        if policy.keepsEverything { return false }
        let clock = ContinuousClock.now
        let expired = donations.contains { donation in
            policy.window(for: donation.app).cutoff(now: now).map { donation.date < $0 } ?? false
        }
        return lastSweep.withLock { last in
            guard expired || last.map({ clock - $0 >= interval }) ?? true else { return false }
            last = clock
            return true
        }
    }
}
