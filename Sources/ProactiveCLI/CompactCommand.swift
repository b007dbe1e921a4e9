import ArgumentParser
import ProactiveEngine
import Foundation

// MARK: - proactive compact

struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Rebuild the store file so nothing deleted survives on disk (VACUUM, WAL truncate).",
        discussion: """
            Deleted rows are already overwritten in place (secure_delete); `compact` also copies \
            the write-ahead log into the file, truncates the log to zero bytes, and rebuilds the file \
            without free pages. Waits for other processes' reads to finish. Prints the sizes before \
            and after. For the device owner only.

            Example:
              proactive compact
            """)

    @OptionGroup var storeOptions: StoreOptions

    func run() throws {
        let report = try storeOptions.openEngine(.mustExist).compact()
        if case .database = storeOptions.location {
            // VACUUM FULL rewrote every table and index; the server's write-ahead log is its own.
            print("database \(report.fileBytesBefore) -> \(report.fileBytesAfter) bytes")
            ImportProgressPrinter.writeError("the tables were rewritten; the server's write-ahead log (and any archive or replica) keeps "
                                             + "older copies until the server recycles its segments\n")
            return
        }
        print("store \(report.fileBytesBefore) -> \(report.fileBytesAfter) bytes, "
              + "write-ahead log \(report.walBytesBefore) -> \(report.walBytesAfter) bytes")
        if !report.logTruncated {
            ImportProgressPrinter.writeError("another process kept the write-ahead log open; run compact again when it is done\n")
            throw ExitCode.failure
        }
    }
}
