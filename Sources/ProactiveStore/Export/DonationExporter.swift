import Foundation
import ProactiveCore

// MARK: - Exporter

/// Writes donations back as canonical JSON Lines (`DonationLineCodec.encode`),
/// one per line, in the store's export order: user, then date, then
/// insertion order. A user with a configured zone has it on each of their
/// lines (`"timezone"`), so that importing the file restores it. Streaming: one page of donations and one output buffer
/// in memory.
///
/// Importing a canonical file whose lines are already in that order and
/// exporting it gives the same bytes.
///
/// ```swift
/// let count = try DonationExporter(store: store).export(matching: DonationFilter(user: "u1"), toPath: "u1.jsonl")
/// ```
package struct DonationExporter: Sendable {
    package var store: any DonationStore
    package var pageSize: Int

    package init(store: any DonationStore, pageSize: Int = 2000) {
        self.store = store
        self.pageSize = pageSize
    }

    /// Exports to a file.
    ///
    /// - A regular file (or a path that does not exist yet) is written
    ///   atomically: the lines go to a new temporary file beside it, which
    ///   replaces it only when everything was written and synced. A symbolic
    ///   link is followed: its target is replaced, the link stays.
    /// - A FIFO or a character device (`/dev/null`, a terminal) is written
    ///   through, as it is: it is never replaced by a regular file.
    /// - Anything else (a directory, a socket, a block device) is refused, and
    ///   so is any of `protectedPaths` (the files the store owns: itself, its
    ///   `-wal`, `-shm` and `-journal` files, credential files), compared by
    ///   file identity and by path.
    /// - Returns: how many lines were written.
    /// - Throws: `StoreError` (`.io` naming the file, `.invalidRequest` for a
    ///   refused output, or a store error).
    @discardableResult
    package func export(matching filter: DonationFilter = .everything, toPath path: String,
                       protectedPaths: [String] = []) throws(StoreError) -> Int {
        let output = try ExportDestination(path: path, protectedPaths: protectedPaths)
        guard output.isRegular else {
            let descriptor = open(output.path, O_WRONLY | O_NOCTTY)
            guard descriptor >= 0 else { throw StoreError(.io, "cannot open \(path): \(String(cString: strerror(errno)))") }
            defer { close(descriptor) }
            var buffer = OutputBuffer(descriptor: descriptor, name: path)
            let count = try export(matching: filter, to: &buffer)
            try buffer.flush()
            return count
        }
        var template = Array((output.path + ".partial-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        let partial = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        guard descriptor >= 0 else { throw StoreError(.io, "cannot create a temporary file beside \(path): \(String(cString: strerror(errno)))") }
        var buffer = OutputBuffer(descriptor: descriptor, name: partial)
        let count: Int
        do throws(StoreError) {
            guard fchmod(descriptor, output.mode) == 0 else { throw StoreError(.io, "cannot set the mode of \(partial): \(String(cString: strerror(errno)))") }
            count = try export(matching: filter, to: &buffer)
            try buffer.flush()
            guard fsync(descriptor) == 0 else { throw StoreError(.io, "cannot sync \(partial): \(String(cString: strerror(errno)))") }
        } catch {
            close(descriptor)
            unlink(partial)
            throw error
        }
        close(descriptor)
        guard rename(partial, output.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw StoreError(.io, "cannot move \(partial) to \(output.path): \(reason)")
        }
        return count
    }

    /// Exports in blocks of whole lines (each about 256 KiB, the last one shorter) handed to
    /// `write`, which puts them where the caller's output goes (standard output, a capture).
    /// - Returns: how many lines were written.
    /// - Throws: `StoreError`: a store error, or `.io` carrying the description of what `write` threw.
    ///
    /// ```swift
    /// try DonationExporter(store: store).export(matching: .everything) { block in FileHandle.standardOutput.write(Data(block.utf8)) }
    /// ```
    @discardableResult
    package func export(matching filter: DonationFilter = .everything,
                       writingBlocks write: (String) throws -> Void) throws(StoreError) -> Int {
        try withoutActuallyEscaping(write) { (write) throws(StoreError) -> Int in
            var output = OutputBuffer(name: "the output", writingBlocks: write)
            let count = try export(matching: filter, to: &output)
            try output.flush()
            return count
        }
    }

    /// Exports into a string (tests, small stores).
    package func exportedText(matching filter: DonationFilter = .everything) throws(StoreError) -> String {
        var text = ""
        do {
            var zones = UserZones(store: store)
            try store.forEachDonation(matching: filter, pageSize: pageSize) { donation in
                text += DonationLineCodec.encode(donation, timeZone: try zones.zone(of: donation.user))
                text += "\n"
            }
        } catch {
            throw StoreError.wrapping(error, while: "exporting donations")
        }
        return text
    }

    private func export(matching filter: DonationFilter, to output: inout OutputBuffer) throws(StoreError) -> Int {
        var count = 0
        var cursor: DonationCursor?
        var zones = UserZones(store: store)
        repeat {
            let page = try store.page(matching: filter, after: cursor, limit: pageSize)
            for donation in page.donations {
                try output.append(line: DonationLineCodec.encode(donation, timeZone: try zones.zone(of: donation.user)))
                count += 1
            }
            cursor = page.next
        } while cursor != nil
        return count
    }
}

/// Each user's configured zone, read once per export (lines are in user order).
private struct UserZones {
    let store: any DonationStore
    var last: (user: String, zone: String?)?

    init(store: any DonationStore) { self.store = store }

    mutating func zone(of user: String) throws(StoreError) -> String? {
        if let last, last.user == user { return last.zone }
        let zone = try store.timeZone(forUser: user)
        last = (user, zone)
        return zone
    }
}

// MARK: - Destination

/// Where `export(toPath:)` writes: the path with symbolic links resolved, and
/// whether it is (or will be) a regular file.
struct ExportDestination {
    /// The path to write (a symbolic link's target).
    let path: String
    let isRegular: Bool
    /// The mode of the new file: the replaced file's, else 0644 less the umask.
    let mode: mode_t

    init(path: String, protectedPaths: [String]) throws(StoreError) {
        func refuse(_ reason: String) -> StoreError { StoreError(.invalidRequest, "refusing to export to \(path): \(reason)") }
        var info = stat()
        var resolved = path
        if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK {
            if let target = realpath(path, nil) {
                resolved = String(cString: target)
                free(target)
            } else if stat(path, &info) == 0, [S_IFIFO, S_IFCHR].contains(info.st_mode & S_IFMT) {
                // A link the kernel resolves to no path, such as /dev/stdout when it is a pipe:
                // written through the link.
            } else {
                throw refuse("it is a symbolic link to nothing that exists")
            }
        }
        let exists = stat(resolved, &info) == 0
        for protected in protectedPaths where Self.same(resolved, exists ? info : nil, protected) {
            throw refuse("it is the store or one of its files (\(protected))")
        }
        self.path = resolved
        guard exists else {
            let mask = umask(0)
            umask(mask)
            isRegular = true
            mode = 0o644 & ~mask
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            isRegular = true
            mode = info.st_mode & 0o7777
        case S_IFIFO, S_IFCHR:
            isRegular = false
            mode = 0
        case S_IFDIR:
            throw refuse("it is a directory")
        default:
            throw refuse("it is neither a regular file, a FIFO nor a character device")
        }
    }

    /// Whether `path` (with `info` when it exists) is the file `protected`: the
    /// same device and inode, or the same absolute path once the directory's
    /// links are resolved (for a file that does not exist yet, such as a WAL).
    static func same(_ path: String, _ info: stat?, _ protected: String) -> Bool {
        var other = stat()
        if let info, stat(protected, &other) == 0, info.st_dev == other.st_dev, info.st_ino == other.st_ino { return true }
        return canonical(path) == canonical(protected)
    }

    /// The absolute path with the parent directory's symbolic links resolved.
    static func canonical(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        guard let resolved = realpath(directory, nil) else { return url.standardizedFileURL.path }
        defer { free(resolved) }
        return URL(fileURLWithPath: String(cString: resolved)).appendingPathComponent(url.lastPathComponent).path
    }
}

// MARK: - Output buffer

/// Collects bytes and hands them on in large blocks of whole lines: to a file descriptor, or to
/// a closure.
struct OutputBuffer {
    let name: String
    private let sink: (UnsafeRawBufferPointer) throws(StoreError) -> Void
    private var bytes: [UInt8] = []
    static let capacity = 1 << 18

    /// Blocks handed to `sink`.
    init(name: String, sink: @escaping (UnsafeRawBufferPointer) throws(StoreError) -> Void) {
        self.name = name
        self.sink = sink
        bytes.reserveCapacity(Self.capacity + 4096)
    }

    /// Blocks handed to `write` as text; what it throws becomes `StoreError.io` (a `StoreError` as it is).
    init(name: String, writingBlocks write: @escaping (String) throws -> Void) {
        self.init(name: name) { bytes throws(StoreError) in
            do { try write(String(decoding: bytes, as: UTF8.self)) } catch let error as StoreError { throw error } catch {
                throw StoreError(.io, "\(error)")
            }
        }
    }

    /// Blocks written to `descriptor` (`name` in errors).
    init(descriptor: Int32, name: String) {
        self.init(name: name) { buffer throws(StoreError) in
            if let failure = writeAll(descriptor, buffer) {
                throw StoreError(.io, "cannot write to \(name): \(String(cString: strerror(failure)))")
            }
        }
    }

    mutating func append(line: String) throws(StoreError) {
        bytes.append(contentsOf: line.utf8)
        bytes.append(0x0A)
        if bytes.count >= Self.capacity { try flush() }
    }

    mutating func flush() throws(StoreError) {
        guard !bytes.isEmpty else { return }
        let failure: StoreError? = bytes.withUnsafeBytes { buffer in
            do throws(StoreError) { try sink(buffer); return nil } catch { return error }
        }
        if let failure { throw failure }
        bytes.removeAll(keepingCapacity: true)
    }
}

/// Writes all of `buffer` to `descriptor`, again after an interrupted or partial write.
/// - Returns: nil when everything was written, else the `errno` of the failed write.
package func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32? {
    var written = 0
    while written < buffer.count {
        let count = Foundation.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
        if count < 0 {
            if errno == EINTR { continue }
            return errno
        }
        written += count
    }
    return nil
}
