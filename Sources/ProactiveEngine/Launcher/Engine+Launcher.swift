import Foundation
import ProactiveCore
import ProactiveRanking

// MARK: - A launcher's menu

/// One row of a launcher's menu: a suggestion of the engine (first) or one of the desktop's applications.
public struct LauncherItem: Sendable, Hashable {
    /// What the row does when chosen.
    public enum Action: Sendable, Hashable {
        /// Runs the application (`DesktopApplication.command`).
        case application(DesktopApplication)
        /// Opens `https://SITE` with the desktop's default browser (`xdg-open`).
        case site(String)
    }

    /// The row's text (the application's name, or the site).
    public var text: String
    public var action: Action
    /// Whether the engine suggested it now (those rows come first, best first).
    public var suggested: Bool
    /// The donation that choosing it records: the app opened, or the site visited in the browser app.
    public var donation: Donation

    public init(text: String, action: Action, suggested: Bool, donation: Donation) {
        self.text = text
        self.action = action
        self.suggested = suggested
        self.donation = donation
    }

    /// The row `key` names (`app:ID` among `applications`, `site:BROWSER:SITE`), dated `date`; nil for no such row.
    public static func named(_ key: String, user: String, applications: [DesktopApplication], date: Date) -> LauncherItem? {
        if key.hasPrefix("app:") {
            let id = String(key.dropFirst(4))
            guard let application = applications.first(where: { $0.id == id }) else { return nil }
            return LauncherItem(text: application.name, action: .application(application), suggested: false,
                                donation: Donation(user: user, app: application.app, intent: Donation.openIntent, date: date))
        }
        let parts = key.split(separator: ":", maxSplits: 2).map(String.init)
        guard parts.count == 3, parts[0] == "site", !parts[2].isEmpty else { return nil }
        return LauncherItem(text: parts[2], action: .site(parts[2]), suggested: true,
                            donation: Donation(user: user, app: parts[1], intent: "visit", parameters: ["site": .string(parts[2])], date: date))
    }

    /// A key that names the row across calls (rofi's `info`): `app:ID` or `site:BROWSER:SITE`.
    public var key: String {
        switch action {
        case let .application(application): "app:" + application.id
        case let .site(site): "site:\(donation.app):\(site)"
        }
    }
}

extension Engine {
    /// The launcher's menu at `date`: the user's suggestions that a launcher can act on (an app
    /// that is one of `applications`, a site visited in a browser), best first, then every other
    /// application by name. A suggestion of something else (a shell command, an app intent) is
    /// left out. With no donations yet the menu is the applications alone.
    ///
    /// - Parameters:
    ///   - k: how many suggestions at most.
    ///   - developerMode: lift the confidence floor (every candidate, best first).
    /// - Throws: store failures.
    ///
    /// ```swift
    /// let menu = try engine.launcherMenu(user: "me", at: Date(), applications: DesktopApplications.find(environment: env))
    /// ```
    public func launcherMenu(user: String, at date: Date, applications: [DesktopApplication], k: Int = 5,
                             developerMode: Bool = false) throws -> [LauncherItem] {
        var suggestions: [Suggestion] = []
        do {
            suggestions = try suggest(user: user, at: date, k: max(k * 4, 20), developerMode: developerMode).suggestions
        } catch let error as EngineError where error.code == .noDonations {
            suggestions = []
        }
        var items: [LauncherItem] = []
        var shown = Set<String>()
        for suggestion in suggestions where items.count < k {
            guard let item = Self.launcherItem(for: suggestion, user: user, date: date, applications: applications),
                  shown.insert(item.key).inserted else { continue }
            items.append(item)
        }
        for application in applications {
            let item = LauncherItem(text: application.name, action: .application(application), suggested: false,
                                    donation: Donation(user: user, app: application.app, intent: Donation.openIntent, date: date))
            if shown.insert(item.key).inserted { items.append(item) }
        }
        return items
    }

    /// The row a suggestion becomes, if a launcher can act on it.
    static func launcherItem(for suggestion: Suggestion, user: String, date: Date, applications: [DesktopApplication]) -> LauncherItem? {
        let open = TargetKey(app: suggestion.app, intent: Donation.openIntent, parameters: [:])
        if suggestion.target == open {
            guard let application = applications.first(where: { $0.isApp(suggestion.app) }) else { return nil }
            return LauncherItem(text: application.name, action: .application(application), suggested: true,
                                donation: Donation(user: user, app: suggestion.app, intent: Donation.openIntent, date: date))
        }
        let visitPrefix = TargetKey(app: suggestion.app, intent: "visit", parameters: [:]).rawValue + "(site="
        let raw = suggestion.target.rawValue
        guard raw.hasPrefix(visitPrefix), raw.hasSuffix(")"),
              let site = String(raw.dropFirst(visitPrefix.count).dropLast()).removingPercentEncoding, !site.contains(",") else { return nil }
        return LauncherItem(text: site, action: .site(site), suggested: true,
                            donation: Donation(user: user, app: suggestion.app, intent: "visit", parameters: ["site": .string(site)], date: date))
    }
}
