import Foundation
import ProactiveCore
import ProactiveEngine
import ProactiveRanking
import ProactiveStore

// MARK: - Declarations from the store

enum DeclarationLoading {
    /// The user's relevant shortcuts and timelines that the store's acting party may see.
    static func declarations(_ store: AppScopedDeclarationStore, user: String) throws -> Declarations {
        try Engine.declarations(store, user: user, skipped: { printError("warning: \($0)") })
    }

    /// The stored form of a feedback event.
    static func stored(_ event: FeedbackEvent, user: String, utcOffset: Int) -> StoredFeedback {
        StoredFeedback(user: user, date: event.date, kind: event.kind.rawValue, scope: event.scope.description, app: event.app,
                       eventJSON: FeedbackCodec.encode(event, utcOffset: utcOffset))
    }
}

/// Reads a whole text file, naming it in the error.
func readTextFile(_ path: String) throws -> String {
    do {
        return try String(contentsOfFile: path, encoding: .utf8)
    } catch {
        throw CommandFailure(description: "\(path): cannot be read (\(error.localizedDescription))")
    }
}
