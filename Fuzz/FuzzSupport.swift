import Foundation

// MARK: - Helpers shared by the fuzz targets (compiled into each of them)

/// Invariant 2: parse -> write -> parse gives an equal value.
func checkJSONRoundTrip(_ bytes: UnsafeRawBufferPointer) {
    guard let value = try? JSONParser.parse(bytes) else { return }
    let text = JSONWriter.string(value)
    do {
        let reparsed = try JSONParser.parse(text)
        if reparsed != value { fuzzFailure("JSON writer output parses to another value: \(text.prefix(200))", bytes) }
    } catch {
        fuzzFailure("JSON writer output does not parse (\(error)): \(text.prefix(200))", bytes)
    }
}

/// Reports a broken invariant and traps so that libFuzzer records the input.
func fuzzFailure(_ message: String, _ bytes: UnsafeRawBufferPointer) -> Never {
    let preview = String(decoding: bytes.prefix(300), as: UTF8.self)
    FileHandle.standardError.write(Data("INVARIANT BROKEN: \(message)\nINPUT: \(preview)\n".utf8))
    abort()
}
