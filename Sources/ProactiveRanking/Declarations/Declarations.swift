import Foundation

// MARK: - What apps declared for one user

/// Everything the apps declared for one user: relevant-shortcut sets and widget
/// timelines. A value type the store loads and saves as a whole per user.
public struct Declarations: Sendable, Hashable {
    public var shortcuts: RelevantShortcutRegistry
    public var timelines: WidgetTimelineRegistry

    public init(shortcuts: RelevantShortcutRegistry = RelevantShortcutRegistry(), timelines: WidgetTimelineRegistry = WidgetTimelineRegistry()) {
        self.shortcuts = shortcuts
        self.timelines = timelines
    }

    /// Every widget the declarations mention (shortcuts and timelines), sorted by key.
    public var widgets: [WidgetID] {
        var set = Set(timelines.timelines.keys)
        for (shortcut, _) in shortcuts.shortcuts { set.insert(shortcut.widget) }
        return set.sorted()
    }
}
