import Foundation
import Testing

extension CommandTests {
    @Suite("export")
    struct ExportCommandTests {
        @Test("export -o refuses every file the store owns, naming it; nothing is written")
        func refusesTheStoresFiles() async throws {
            let store = try CLIStore()
            try await store.succeed("import", Sample.donations, "--progress", "none")
            try await store.succeed("apps", "add", "com.example.coffee")
            let owner = store.path + ".owner-credential"
            try "pk_owner\n".write(toFile: owner, atomically: true, encoding: .utf8)
            for file in [store.path + ".credentials", owner, store.path, store.path + "-wal", store.path + "-shm", store.path + "-journal"] {
                let before = FileManager.default.contents(atPath: file)
                let run = await store.run("export", "--output", file)
                #expect(run.status != 0, "\(run)")
                #expect(run.error.contains(file), "\(run)")
                #expect(FileManager.default.contents(atPath: file) == before, "\(file) was changed")
            }
            // The credentials still hold the app's credential.
            #expect(try String(contentsOfFile: store.path + ".credentials", encoding: .utf8).contains("com.example.coffee"))
        }

        @Test("export without --output writes every line to standard output (in blocks), the same bytes as export -o")
        func standardOutputMatchesTheFile() async throws {
            let store = try CLIStore()
            try await store.succeed("import", Sample.donations, "--progress", "none")
            let file = store.path + ".export.jsonl"
            try await store.succeed("export", "--output", file)
            let printed = try await store.succeed("export")
            let written = try String(contentsOfFile: file, encoding: .utf8)
            #expect(!written.isEmpty && printed.output == written, "standard output and the file differ: \(printed.output.count) against \(written.count) characters")
        }
    }
}
