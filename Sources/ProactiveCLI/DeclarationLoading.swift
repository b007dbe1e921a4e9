import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - Declarations from the store

extension Engine {
    /// The same engine, telling each stored row it skips (`skippedStoredData`) as a warning on standard error.
    func warningAboutSkippedData() -> Engine {
        var engine = self
        engine.skippedStoredData = { printError("warning: \($0)") }
        return engine
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
