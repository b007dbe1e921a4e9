import Foundation
import ProactiveCore

// MARK: - Importing device logs into a store

/// The outcome of importing a device log: what the store took (`store`:
/// imported, duplicates, `abortedBy` in strict mode) and what the reader
/// kept, dropped, skipped and found malformed in the device database (`device`).
package struct DeviceLogImport: Sendable {
    package var store: ImportSummary
    package var device: DeviceLogSummary
}

extension DonationImporter {
    /// Imports an Android Digital Wellbeing `app_usage` database under the
    /// importer's batching and strict rules (a malformed row aborts a strict import).
    ///
    /// ```swift
    /// let result = try DonationImporter(store: store).importAndroidUsage(
    ///     path: "app_usage", options: AndroidUsageOptions(timeZone: TimeZone(identifier: "America/New_York")!))
    /// ```
    ///
    /// - Throws: `StoreError` (`.io` for an unreadable or wrong file, or a store error).
    package func importAndroidUsage(path: String, options: AndroidUsageOptions) throws(StoreError) -> DeviceLogImport {
        try importDeviceLog(path: path, format: AndroidUsageReader.format) { onProblem, emit in
            try AndroidUsageReader.read(path: path, options: options, onProblem: onProblem, emit: emit)
        }
    }

    /// Imports an Apple knowledgeC.db (`/app/inFocus`, `/app/usage`, `/app/intents`).
    ///
    /// - Throws: `StoreError` (`.io` for an unreadable or wrong file, or a store error).
    package func importKnowledgeC(path: String, options: KnowledgeCOptions) throws(StoreError) -> DeviceLogImport {
        try importDeviceLog(path: path, format: KnowledgeCReader.format) { onProblem, emit in
            try KnowledgeCReader.read(path: path, options: options, onProblem: onProblem, emit: emit)
        }
    }

    /// Runs a device reader into an import session: each donation is one
    /// record. Malformed rows are listed in the device summary
    /// (`ROW: field: reason`); in strict mode the first one aborts the import
    /// and nothing from the file is stored.
    func importDeviceLog(
        path: String, format: String,
        read: (_ onProblem: (DeviceLogProblem) throws -> Void, _ emit: (Donation) throws -> Void) throws -> DeviceLogSummary
    ) throws(StoreError) -> DeviceLogImport {
        var device = DeviceLogSummary(format: format)
        let store = try run(source: path, totalBytes: nil) { session in
            device = try read({ problem in
                // Counted in the device summary; in strict mode it stops the import (rolled back).
                if options.strict { throw ImportSession.StrictAbort(message: "\(path): \(problem)") }
            }, { donation in
                session.countLine()
                try session.add(donation)
            })
        }
        return DeviceLogImport(store: store, device: device)
    }
}
