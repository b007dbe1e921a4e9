import Foundation
import ProactiveCore

// MARK: - Importing a desktop's own history into a store

extension DonationImporter {
    /// Imports a shell's history file (zsh EXTENDED_HISTORY, fish, bash with HISTTIMEFORMAT)
    /// under the importer's batching and strict rules (a malformed line aborts a strict import).
    ///
    /// ```swift
    /// let result = try importer.importShellHistory(path: "~/.zsh_history", shell: .zsh,
    ///                                              options: ShellHistoryOptions(timeZone: .current))
    /// ```
    /// - Throws: `StoreError` (`.io` for an unreadable file, or a store error).
    package func importShellHistory(path: String, shell: ShellKind, options: ShellHistoryOptions) throws(StoreError) -> DeviceLogImport {
        try importDeviceLog(path: path, format: shell.rawValue) { onProblem, emit in
            try ShellHistoryReader.read(path: path, shell: shell, options: options, onProblem: onProblem, emit: emit)
        }
    }

    /// Imports a Firefox `places.sqlite` or a Chromium `History` database (see `BrowserHistoryReader`).
    /// - Throws: `StoreError` (`.io` for an unreadable or wrong file, or a store error).
    package func importBrowserHistory(path: String, browser: BrowserKind, options: BrowserHistoryOptions) throws(StoreError) -> DeviceLogImport {
        try importDeviceLog(path: path, format: browser.rawValue) { onProblem, emit in
            try BrowserHistoryReader.read(path: path, browser: browser, options: options, onProblem: onProblem, emit: emit)
        }
    }

    /// Imports an ActivityWatch export (`GET /api/0/export`); see `ActivityWatchExportReader`.
    /// - Throws: `StoreError` (`.io` for an unreadable or wrong file, or a store error).
    package func importActivityWatch(path: String, options: ActivityWatchOptions) throws(StoreError) -> DeviceLogImport {
        try importDeviceLog(path: path, format: ActivityWatchExportReader.format) { onProblem, emit in
            try ActivityWatchExportReader.read(path: path, options: options, onProblem: onProblem, emit: emit)
        }
    }
}
