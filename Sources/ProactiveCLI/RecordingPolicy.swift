import Foundation
import ProactiveCore
import ProactiveEngine

// MARK: - Pause and retention around donating commands

/// What `import` and `donate` do around storing: refuse while recording is
/// paused (with the way to resume), and apply the retention policy (saying
/// what it erased): `import` before storing, `donate` and `train` before
/// reading or after writing.
enum RecordingPolicy {
    /// - Throws: `StoreError(.recordingPaused)` with a clear message when recording is paused.
    static func requireRecording(_ engine: Engine) throws {
        try engine.requireRecording(resume: "proactive pause off")
    }

    /// Erases what is older than the retention windows at `now` and reports it on standard error.
    @discardableResult
    static func applyRetention(_ engine: Engine, now: Date) throws -> RetentionReport {
        let report = try engine.applyRetention(now: now)
        tell(report)
        return report
    }

    /// Says on standard error what retention erased (nothing when it erased nothing).
    static func tell(_ report: RetentionReport) {
        if !report.isEmpty {
            let apps = report.donationsByApp.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            ImportProgressPrinter.writeError("retention: erased \(report.donations) stored donations now older than their window"
                                             + (apps.isEmpty ? "" : " (\(apps))")
                                             + (report.feedback > 0 ? " and \(report.feedback) feedback events" : "")
                                             + "; see proactive retention show\n")
        }
    }
}

/// `2026-11-20T15:02:11Z`.
enum DateFormatting {
    static func utc(_ date: Date) -> String {
        Timestamp.format(secondsSince1970: date.timeIntervalSince1970, utcOffsetSeconds: 0)
    }
}
