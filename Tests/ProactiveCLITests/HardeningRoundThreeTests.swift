import Foundation
import ProactiveStore
import Testing

/// A small tmpfs mounted for one test (root only: `mount(8)`), unmounted when the test ends.
final class ScratchMount: @unchecked Sendable {
    let path: String

    /// Whether this process may mount (root, with `mount` present), for `.enabled(if:)`.
    static var available: Bool { getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount") }

    init(size: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-mount-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path])
    }

    /// Makes the mount read-only (`mount -o remount,ro`): even root can then write nothing there.
    func makeReadOnly() throws { try Self.run("/bin/mount", ["-o", "remount,ro", path]) }

    deinit {
        try? Self.run("/bin/umount", [path])
        try? FileManager.default.removeItem(atPath: path)
    }

    static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(tool) \(arguments) exited \(process.terminationStatus)"])
        }
    }
}

extension CommandTests {
    /// Issue 42: names checked everywhere, a full disk and a read-only store said as such.
    @Suite("Hardening, third round")
    struct HardeningRoundThree {
        @Test("apps add refuses '.', '..' and a percent-encoded separator, naming the rule; nothing is minted")
        func appsAddRefusesPaths() async throws {
            let store = try CLIStore()
            for app in [".", "..", "com.example.coffee%2F..%2Fcom.example.tea", "com\\tea"] {
                let run = await store.run("apps", "add", app)
                #expect(run.status != 0, "\(run)")
                #expect(run.error.contains("is not a bundle identifier"), "\(run)")
            }
            #expect(await store.run("apps", "list").output.isEmpty)
            try await store.succeed("apps", "add", "com.example.coffee")
        }

        @Test("a Focus filter declared for app '..' is refused, naming the field")
        func focusFilterForAPath() async throws {
            let store = try CLIStore()
            let file = store.directory.appendingPathComponent("filter.json").path
            try #"{"app": "..", "title": "T", "parameters": [{"name": "units", "type": "string"}]}"#.write(toFile: file, atomically: true, encoding: .utf8)
            let run = await store.run("focus", "filter", "define", "--app", "..", file)
            #expect(run.status != 0, "\(run)")
            #expect(run.error.contains("'.' or '..'"), "\(run)")
        }

        @Test("on a read-only mount stats, export, predict and suggest read the store; a write says the store is read-only, naming it",
              .enabled(if: ScratchMount.available, "needs root to mount a tmpfs"))
        func readOnlyStore() async throws {
            let mount = try ScratchMount(size: "64m")
            let store = mount.path + "/store.sqlite"
            func run(_ arguments: String...) async -> CommandRun { await proactive(arguments + ["--store", store]) }
            let imported = await run("import", Sample.donations, "--progress", "none")
            try #require(imported.status == 0, "\(imported)")
            try mount.makeReadOnly()
            #expect(!FileManager.default.fileExists(atPath: store + "-wal") && !FileManager.default.fileExists(atPath: store + "-shm"))
            let stats = await run("stats")
            #expect(stats.status == 0, "\(stats)")
            #expect(await run("export").status == 0)
            let predict = await run("predict", "--user", "me", "--at", "2026-11-20T07:30:00-08:00")
            #expect(predict.status == 0, "\(predict)")
            let suggest = await run("suggest", "--user", "me", "--at", "2026-11-20T07:30:00-08:00")
            #expect(suggest.status == 0, "\(suggest)")
            let write = await run("donate", "--app", "com.example.coffee", "--intent", "OrderCoffeeIntent")
            #expect(write.status != 0, "\(write)")
            #expect(write.error.contains("the store is read-only: \(store)"), "\(write)")
        }

        @Test("a full disk: import stops saying the disk is full, and what was committed before stays readable",
              .enabled(if: ScratchMount.available, "needs root to mount a tmpfs"))
        func diskFull() async throws {
            let mount = try ScratchMount(size: "2m")
            let store = mount.path + "/store.sqlite"
            let big = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-big-\(UUID().uuidString).jsonl")
            defer { try? FileManager.default.removeItem(at: big) }
            let padding = String(repeating: "x", count: 300)
            let lines = (1...20_000).map { index in
                #"{"user":"me","app":"com.example.coffee","intent":"OrderCoffeeIntent","parameters":{"item":"\#(padding)-\#(index)"},"date":\#(1_790_000_000 + index * 60)}"#
            }
            try (lines.joined(separator: "\n") + "\n").write(to: big, atomically: true, encoding: .utf8)
            let full = await proactive(["import", big.path, "--progress", "none", "--store", store])
            #expect(full.status != 0, "\(full)")
            #expect(full.error.contains("the disk is full"), "\(full)")
            #expect(!full.error.contains("SQLite error 13: database or disk is full") || full.error.contains("free space"), "\(full)")
            let stats = await proactive(["stats", "--store", store])
            #expect(stats.status == 0, "\(stats)")
        }
    }
}
