import ProactiveStore

// MARK: - Saved states

extension Engine {
    /// Every saved state (or the user's) with what it has not folded in yet; reads only.
    public func modelStatuses(user: String? = nil) throws -> [ModelStateStatus] { try storage.modelStatuses(user: user) }
}
