import Foundation
import ProactiveCore

// MARK: - Android usage events

/// One row of Digital Wellbeing's `events` table with its package name joined.
package struct AndroidUsageEvent: Sendable, Hashable {
    /// Unix milliseconds (UTC), as the table stores them.
    package var timestampMilliseconds: Int64
    /// `android.app.usage.UsageEvents.Event` type code.
    package var type: Int
    package var package: String

    package init(timestampMilliseconds: Int64, type: Int, package: String) {
        self.timestampMilliseconds = timestampMilliseconds
        self.type = type
        self.package = package
    }

    /// `ACTIVITY_RESUMED`: the app came to the foreground.
    package static let activityResumed = 1
    /// `KEYGUARD_HIDDEN`: the device was unlocked.
    package static let keyguardHidden = 18

    /// `UsageEvents.Event` constant names, for summaries.
    package static let typeNames: [Int: String] = [
        1: "ACTIVITY_RESUMED", 2: "ACTIVITY_PAUSED", 5: "CONFIGURATION_CHANGE", 7: "USER_INTERACTION",
        8: "SHORTCUT_INVOCATION", 10: "NOTIFICATION_SEEN", 11: "STANDBY_BUCKET_CHANGED",
        12: "NOTIFICATION_INTERRUPTION", 15: "SCREEN_INTERACTIVE", 16: "SCREEN_NON_INTERACTIVE",
        17: "KEYGUARD_SHOWN", 18: "KEYGUARD_HIDDEN", 19: "FOREGROUND_SERVICE_START",
        20: "FOREGROUND_SERVICE_STOP", 23: "ACTIVITY_STOPPED", 26: "DEVICE_SHUTDOWN", 27: "DEVICE_STARTUP",
    ]

    /// "event type 2 (ACTIVITY_PAUSED)".
    package static func kind(ofType type: Int) -> String {
        typeNames[type].map { "event type \(type) (\($0))" } ?? "event type \(type)"
    }
}

/// Which foreground events count as separate launches.
package enum AndroidLaunchDeduplication: Sendable, Hashable, CustomStringConvertible {
    /// Every foreground event is a launch.
    case none
    /// Kept when the package differs from the previous kept launch.
    case packageChange
    /// Kept when the package differs from the previous kept launch, or when at
    /// least `window` seconds passed since the previous foreground event of any
    /// app (launcher and System UI included). The default, with 30 minutes.
    case packageChangeOrIdle(window: TimeInterval)

    package static let standard = AndroidLaunchDeduplication.packageChangeOrIdle(window: 30 * 60)

    package var description: String {
        switch self {
        case .none: "none"
        case .packageChange: "package change"
        case let .packageChangeOrIdle(window): "package change or \(Int(window / 60)) min idle"
        }
    }
}

/// How Android foreground events become `open` donations.
package struct AndroidUsageOptions: Sendable, Hashable {
    /// The home screen and System UI: switching surfaces, not app launches.
    package static let launcherPackages: Set<String> = ["com.google.android.apps.nexuslauncher", "com.android.systemui"]

    /// The user the donations belong to.
    package var user: String
    /// The zone the handset lived in; each donation's offset is this zone's offset at its instant.
    package var timeZone: TimeZone
    /// Keep `launcherPackages` launches (default: left out).
    package var keepLauncher: Bool
    package var deduplication: AndroidLaunchDeduplication
    /// When set, a launch within this many seconds after a keyguard unlock
    /// carries the context `unlocked: recent`.
    package var unlockWindow: TimeInterval?

    package init(user: String = Donation.defaultUser, timeZone: TimeZone, keepLauncher: Bool = false,
                deduplication: AndroidLaunchDeduplication = .standard, unlockWindow: TimeInterval? = nil) {
        self.user = user
        self.timeZone = timeZone
        self.keepLauncher = keepLauncher
        self.deduplication = deduplication
        self.unlockWindow = unlockWindow
    }
}

// MARK: - The filter (pure)

/// Turns a chronological stream of Android usage events into `open` donations,
/// applying the launcher exclusion and the deduplication rule.
///
/// ```swift
/// var filter = AndroidLaunchFilter(options: AndroidUsageOptions(timeZone: newYork))
/// for event in events { if case let .launch(donation) = filter.offer(event) { ... } }
/// ```
///
/// Feed events in timestamp order; the decision for an event depends on the
/// events before it only.
package struct AndroidLaunchFilter: Sendable {
    /// What became of one event.
    package enum Decision: Sendable, Equatable {
        case launch(Donation)
        /// A foreground event deliberately left out, with the reason.
        case dropped(String)
        /// Not a foreground event (another event type), with its kind.
        case notALaunch(String)
    }

    package static let launcherReason = "launcher or System UI"
    package static let repeatReason = "repeat of the previous kept launch"

    package let options: AndroidUsageOptions
    private var lastKeptPackage: String?
    private var lastForegroundMilliseconds: Int64?
    private var lastUnlockMilliseconds: Int64?

    package init(options: AndroidUsageOptions) { self.options = options }

    package mutating func offer(_ event: AndroidUsageEvent) -> Decision {
        if event.type == AndroidUsageEvent.keyguardHidden { lastUnlockMilliseconds = event.timestampMilliseconds }
        guard event.type == AndroidUsageEvent.activityResumed else { return .notALaunch(AndroidUsageEvent.kind(ofType: event.type)) }

        let previousForeground = lastForegroundMilliseconds
        lastForegroundMilliseconds = event.timestampMilliseconds
        if !options.keepLauncher, AndroidUsageOptions.launcherPackages.contains(event.package) {
            return .dropped(Self.launcherReason)
        }
        guard isNewLaunch(event, previousForeground: previousForeground) else {
            return .dropped(Self.repeatReason + " (\(options.deduplication))")
        }
        lastKeptPackage = event.package
        return .launch(donation(for: event))
    }

    private func isNewLaunch(_ event: AndroidUsageEvent, previousForeground: Int64?) -> Bool {
        switch options.deduplication {
        case .none:
            return true
        case .packageChange:
            return event.package != lastKeptPackage
        case let .packageChangeOrIdle(window):
            if event.package != lastKeptPackage { return true }
            guard let previousForeground else { return true }
            return Double(event.timestampMilliseconds - previousForeground) >= window * 1000
        }
    }

    private func donation(for event: AndroidUsageEvent) -> Donation {
        let date = Date(millisecondsSince1970: event.timestampMilliseconds)
        var context: [String: String] = [:]
        if let window = options.unlockWindow, let unlock = lastUnlockMilliseconds,
           Double(event.timestampMilliseconds - unlock) <= window * 1000 {
            context["unlocked"] = "recent"
        }
        return Donation(user: options.user, app: event.package, intent: Donation.openIntent, date: date,
                        utcOffset: options.timeZone.secondsFromGMT(for: date), context: context)
    }
}
