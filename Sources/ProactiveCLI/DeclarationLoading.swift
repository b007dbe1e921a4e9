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
}

/// Reads a whole text file, naming it in the error.
func readTextFile(_ path: String) throws -> String {
    do {
        return try String(contentsOfFile: path, encoding: .utf8)
    } catch {
        throw CommandFailure(description: "\(path): cannot be read (\(error.localizedDescription))")
    }
}
