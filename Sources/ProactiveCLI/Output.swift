import Foundation
import ProactiveEngine

// MARK: - Where the commands write

/// Standard output and standard error of the commands: the process's streams,
/// or, for a task that installed one, an `OutputCapture` (the CLI tests run
/// commands in process and read what they printed).
///
/// Every command writes through here: `print` below shadows `Swift.print` in
/// this module, and `printError` and `ImportProgressPrinter.writeError` go
/// to `Output.writeError`.
public enum Output {
    /// The capture for the current task and its child tasks; nil: the process's streams.
    @TaskLocal public static var capture: OutputCapture?

    /// Writes to standard output.
    static func write(_ text: String) {
        if let capture { capture.append(text, error: false) } else { Swift.print(text, terminator: "") }
    }

    /// Writes a block to standard output and fails as soon as it cannot be written (a full disk,
    /// `> /dev/full`), for output too large to find out only at exit.
    /// - Throws: `CommandFailure` "cannot write to standard output: REASON".
    static func writeChecked(_ text: String) throws {
        if let capture { capture.append(text, error: false); return }
        // What `print` buffered goes first; the block itself is written past the buffer, so that
        // a failed write is seen here and not lost in the stream's error flag.
        let failure = fflush(nil) != 0 ? errno : Array(text.utf8).withUnsafeBytes { writeAll(STDOUT_FILENO, $0) }
        if let failure { throw CommandFailure(description: "cannot write to standard output: \(String(cString: strerror(failure)))") }
    }

    /// Writes to standard error (unbuffered: one write(2) per call, retried until all is written). What
    /// `print` buffered for standard output is flushed first, so that with both streams on one pipe
    /// (`2>&1`, a terminal behind `tee`) the messages come in the order they were written, never in the
    /// middle of an output line. A standard error that cannot be written to is ignored: there is nowhere
    /// left to report it.
    static func writeError(_ text: String) {
        if let capture { capture.append(text, error: true); return }
        fflush(nil)
        _ = Array(text.utf8).withUnsafeBytes { writeAll(STDERR_FILENO, $0) }
    }

    /// `text` followed by spaces up to `width` characters (never cut): a table column.
    /// `padded("Open notes", 12)` is `"Open notes  "`; a text of `width` characters or more is returned whole.
    static func padded(_ text: String, _ width: Int) -> String {
        let count = text.count
        return count >= width ? text : text + String(repeating: " ", count: width - count)
    }

    /// `value` with `places` decimals, as C's `printf("%.*f")` writes it (`fixed(0.2836, 3)` is `"0.284"`):
    /// what `String(format: "%.3f", value)` gives, without Foundation's formatter.
    static func fixed(_ value: Double, _ places: Int) -> String {
        let places = min(max(places, 0), 80)
        if places <= 3, value.isFinite, value.magnitude < 0x1p53 { return exactlyRounded(value, places) }
        var buffer = [CChar](repeating: 0, count: 400)  // the longest double, 309 digits, with up to 80 decimals
        let written = withVaList([Int32(places), value]) { vsnprintf(&buffer, buffer.count, "%.*f", $0) }
        guard written >= 0 else { return "\(value)" }
        let length = buffer.firstIndex(of: 0) ?? buffer.count
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `fixed` for a finite value under 2^53 and at most 3 decimals, in integers: the value is m x 2^e
    /// exactly, so value x 10^places is (m x 10^places) x 2^e, which fits 64 bits (m < 2^53, 10^3 < 2^10);
    /// it is rounded half to even on that exact value, as glibc's printf rounds, without building a C
    /// va_list (whose casts of each argument scan the protocol conformance records on first use).
    private static func exactlyRounded(_ value: Double, _ places: Int) -> String {
        var scale: UInt64 = 1
        for _ in 0..<places { scale *= 10 }
        let significand = UInt64(value.significandBitPattern) | (value.isNormal ? 1 << 52 : 0)
        let exponent = Int(value.exponentBitPattern) - 1075 + (value.isNormal ? 0 : 1)
        let product = significand * scale
        var units: UInt64
        if exponent >= 0 {
            units = product << UInt64(exponent)  // value < 2^53 and exponent >= 0: value is an integer under 2^53
        } else if -exponent >= 64 {
            units = 0  // below 2^-1011 x 10^3: less than half a unit
        } else {
            let shift = UInt64(-exponent)
            units = product >> shift
            let rest = product & ((1 << shift) - 1), half: UInt64 = 1 << (shift - 1)
            if rest > half || (rest == half && units & 1 == 1) { units += 1 }
        }
        var digits = String(units)
        if places > 0 {
            if digits.count <= places { digits = String(repeating: "0", count: places + 1 - digits.count) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -places))
        }
        return (value.sign == .minus ? "-" : "") + digits
    }

    /// Whether standard error is a terminal (never while captured): live progress lines only then.
    static var standardErrorIsTerminal: Bool { capture == nil && isatty(STDERR_FILENO) == 1 }
}

/// What commands printed while it was installed as `Output.capture`.
public final class OutputCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var out = ""
    private var err = ""

    public init() {}

    public var standardOutput: String { lock.withLock { out } }
    public var standardError: String { lock.withLock { err } }

    func append(_ text: String, error: Bool) {
        lock.withLock {
            if error { err += text } else { out += text }
        }
    }
}

/// `Swift.print` through `Output`: the commands' standard output.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    Output.write(items.map { "\($0)" }.joined(separator: separator) + terminator)
}
