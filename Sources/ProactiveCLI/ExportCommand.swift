import ArgumentParser
import Foundation
import ProactiveEngine

// MARK: - proactive export

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write stored donations as JSON Lines.",
        discussion: """
            Writes one canonical line per donation (the format `import` reads, docs/FORMATS.md), \
            ordered by user, then date, then the order they were stored. Importing a canonical \
            file in that order and exporting it gives the same bytes, and importing an export \
            into the store it came from stores nothing new. Streams: memory does not grow with \
            the store. A regular file given with --output is replaced only once it is complete \
            (a symbolic link's target is replaced); a FIFO or device is written through; the files \
            the store owns are refused: the store itself, its -wal/-shm/-journal files and the \
            service's STORE.credentials and STORE.owner-credential ('-' or no --output: standard output). \
            With --as-app A only A's donations are exported (another --app is refused).

            Examples:
              proactive export --user u1 --after 2026-11-01 \\
                --before 2026-12-01 --output november.jsonl
              proactive export --app com.example.weather | head
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var filter: FilterOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of standard output ('-').", valueName: "file"))
    var output: String = "-"

    func run() throws {
        let engine = try storeOptions.openEngine(.readOnly, appMode: .scoped)
        let filter = try filter.filter(engine)
        if output == "-" {
            try engine.exportDonations(matching: filter, writingBlocks: Output.writeChecked)
        } else {
            let count = try engine.exportDonations(matching: filter, toPath: output, protectedPaths: storeOptions.ownedFiles)
            printError("exported \(count) donations to \(output)")
        }
    }
}
