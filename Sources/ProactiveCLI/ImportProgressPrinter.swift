import ArgumentParser
import Foundation
import ProactiveEngine

// MARK: - Progress display

/// How `import` reports progress on standard error.
enum ProgressMode: String, ExpressibleByArgument, CaseIterable {
    /// A live line, only when standard error is a terminal.
    case auto
    /// One line per committed batch: `committed ROWS rows from FILE (line N)`.
    /// For scripts that need to know what a crash would leave.
    case log
    case none
}

/// Writes import progress to standard error: a live line redrawn at most
/// ten times a second, or a log line per committed batch.
final class ImportProgressPrinter {
    private let mode: ProgressMode
    private let isTerminal: Bool
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var lastDrawn: ContinuousClock.Instant?
    private var lastCommitted = -1
    private var lineVisible = false
    static let redrawInterval = Duration.milliseconds(100)

    init(mode: ProgressMode) {
        self.mode = mode
        isTerminal = Output.standardErrorIsTerminal
        started = clock.now
    }

    /// Seconds since the import started.
    var elapsed: Double {
        let duration = clock.now - started
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    func report(_ progress: ImportProgress) {
        switch mode {
        case .none:
            return
        case .log:
            guard progress.committed != lastCommitted else { return }
            lastCommitted = progress.committed
            Self.writeError("committed \(progress.committed) rows from \(progress.source) (line \(progress.lines))\n")
        case .auto:
            guard isTerminal else { return }
            let now = clock.now
            if let lastDrawn, now - lastDrawn < Self.redrawInterval { return }
            lastDrawn = now
            var text = "\r\u{1B}[K\(progress.source): "
            if let total = progress.totalBytes, total > 0 {
                text += "\(Int(Double(progress.bytesRead) * 100 / Double(total)))%, "
            }
            text += "\(progress.lines) lines, \(progress.imported) stored"
            if progress.duplicates > 0 { text += ", \(progress.duplicates) already stored" }
            if progress.rejected > 0 { text += ", \(progress.rejected) rejected" }
            let seconds = elapsed
            if seconds > 0.5 { text += ", \(Int(Double(progress.lines) / seconds)) lines/s" }
            Self.writeError(text)
            lineVisible = true
        }
    }

    /// Erases the live line before other output.
    func finish() {
        if lineVisible { Self.writeError("\r\u{1B}[K") }
        lineVisible = false
        lastDrawn = nil
    }

    static func writeError(_ text: String) {
        Output.writeError(text)
    }
}
