import ArgumentParser
import Foundation
import ProactiveEngine

// MARK: - proactive pause

struct PauseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Pause or resume recording: while paused, every donation is refused.",
        discussion: """
            `on` stops recording: `donate` and `import` (and any program using the store) refuse \
            donations with a message saying recording is paused, from the next batch of an import \
            already running. Nothing stored is deleted: suggestions keep using what was learned \
            before. `off` resumes. `status` prints the state. For the device owner only.

            Example:
              proactive pause on
              proactive pause status
              proactive pause off
            """)

    enum Switch: String, ExpressibleByArgument, CaseIterable {
        case on, off, status
    }

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "on, off or status.")
    var state: Switch = .status

    func run() throws {
        let engine = try storeOptions.openEngine(state == .status ? .mustExist : .createIfMissing)
        switch state {
        case .on:
            try engine.setRecordingPaused(true, at: Date())
            print("recording paused: donations and feedback are refused until `proactive pause off`; nothing was deleted")
        case .off:
            try engine.setRecordingPaused(false, at: Date())
            print("recording resumed")
        case .status:
            if let since = try engine.recordingPausedSince() {
                print("paused since \(DateFormatting.utc(since))")
            } else {
                print("recording")
            }
        }
    }
}
