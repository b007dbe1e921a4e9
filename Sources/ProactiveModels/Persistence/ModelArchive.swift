import Foundation

// MARK: - Errors

/// Why bytes could not be read as a saved model. Never a crash: every
/// malformed input ends here.
public enum ModelFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes do not start with the model magic.
    case notAModel
    /// Written by another format version.
    case unsupportedVersion(found: Int, supported: Int)
    /// The file ends inside `field`.
    case truncated(field: String, offset: Int)
    /// The payload's checksum does not match (corrupt file).
    case checksumMismatch(stored: UInt64, computed: UInt64)
    /// A model of another kind than the one asked for.
    case wrongKind(expected: String, found: String)
    /// A kind this build does not know.
    case unknownKind(String)
    /// A value that cannot be right (index out of range, bad shape, bad configuration).
    case invalid(field: String, reason: String)

    public var description: String {
        switch self {
        case .notAModel: return "not a Proactive model file (bad magic)"
        case let .unsupportedVersion(found, supported):
            return "model format version \(found) is not supported (this build reads versions \(ModelArchive.oldestReadableVersion) to \(supported)); retrain"
        case let .truncated(field, offset): return "model file truncated in \(field) at byte \(offset)"
        case let .checksumMismatch(stored, computed):
            return "model file corrupt: checksum \(String(stored, radix: 16)) stored, \(String(computed, radix: 16)) computed"
        case let .wrongKind(expected, found): return "expected a \(expected) model, found \(found)"
        case let .unknownKind(kind): return "unknown model kind \"\(kind)\""
        case let .invalid(field, reason): return "model file invalid: \(field): \(reason)"
        }
    }
}

// MARK: - Persistent models

/// A model that can be saved as bytes and read back exactly (scores identical to the last bit).
public protocol PersistentModel: FittedModel {
    /// The kind tag in the file header (`profile`, `logistic`, `blend`).
    static var kind: String { get }
    /// The model as file bytes (see `ModelArchive`).
    func serialized() -> [UInt8]
    /// The model as two byte strings (see `ModelArchive`): the light part a query reads and the heavy part
    /// (training rows, log records) only learning, unlearning and refitting read; `ModelArchive.decodeAny(_:heavy:)`
    /// reads them back together.
    func serializedParts() -> (light: [UInt8], heavy: [UInt8])
    /// Reads a model written by `serialized()`.
    /// - Throws: `ModelFormatError` for foreign, truncated, corrupt or wrong-kind bytes.
    init(serialized bytes: [UInt8]) throws(ModelFormatError)
}

/// How a persistent model writes and reads its payload (the byte coding stays inside this module).
protocol ArchivedModel: PersistentModel {
    /// Writes the model's configuration, vocabulary and arrays.
    func encodePayload(into writer: inout ByteWriter)
    /// Reads what `encodePayload` wrote, validating shapes and indices.
    init(payload reader: inout ByteReader) throws(ModelFormatError)
}

/// The model file format:
///
///     "PRXM" | format version (UInt16) | kind (UInt32 length + UTF-8) |
///     [parts (UInt8), version 9 on] | payload length (UInt64) | payload |
///     [heavy part length (UInt64) | heavy part checksum (UInt64) |
///      [length (UInt64) and checksum (UInt64) of the heavy part before its tail, version 12 on], when parts is 1] |
///     checksum of everything before it (UInt64)
///
/// The checksum is `FNV1a64.laneHash` from version 6 on, `FNV1a64.hash` in
/// version 5 (whose payload is the same as version 6's, so version-5 states still load).
/// Version 7 saves the profile's previous-target counts sparsely (only the pairs
/// that occurred, see `SparseBlockMatrix`); versions 5 and 6 saved them as a full
/// targets x dimension matrix, read into the same sparse counts.
/// Version 8 adds the blend's routine signal (a weight, and the day-type and
/// "what follows" counts of its usage state); a blend saved in an earlier
/// version is refused (the engine refits it), profile and logistic states still load.
/// Version 9 adds the parts byte. 0: the payload is version 8's, in one piece. 1: a
/// split model (`encodeParts`): what scoring a moment after the newest learned event
/// does not read (the blend's training rows, each log's records) is a second byte
/// string, the heavy part, whose length and checksum the light part holds; in the
/// light payload each log is its count, its newest record and its per-target and
/// per-context-value counts, and the rows and records are read from the heavy part
/// in the order they were written.
/// Version 10 adds the blend's habit-rate signal (a weight, and the usage state's uses by local day,
/// `DayHistory`); a blend saved earlier is refused (the engine refits it).
/// Version 11 adds the blend's weight on no value of a state key (`BlendFeature.profileAbsence`); a
/// blend saved earlier is refused (the engine refits it).
/// Version 12 moves the blend's training rows to the end of the payload, and so to the tail of a
/// heavy part, after the logs' records; the light part also holds the length and checksum of the heavy
/// part before that tail, so a query that explains (reads the logs) reads that prefix alone
/// (`decodeWithoutTail`). Version 11 states load as they are.
/// All integers little-endian. The file write itself (temporary file, then
/// rename) is the caller's job; this type only makes and checks bytes.
package enum ModelArchive {
    package static let magic: [UInt8] = Array("PRXM".utf8)
    package static let formatVersion = 12
    package static let oldestReadableVersion = 5

    static func checksum(_ bytes: ArraySlice<UInt8>, version: Int) -> UInt64 {
        version >= 6 ? FNV1a64.laneHash(bytes) : FNV1a64.hash(bytes)
    }

    /// The bytes of `model`, ready to be written to a file.
    static func encode<Model: ArchivedModel>(_ model: Model, version: Int = formatVersion) -> [UInt8] {
        encodeParts(model, version: version, split: false).light
    }

    /// The bytes of `model`, in one piece or (`split`, version 9 on) as a light and a heavy part.
    static func encodeParts<Model: ArchivedModel>(_ model: Model, version: Int = formatVersion, split: Bool) -> (light: [UInt8], heavy: [UInt8]) {
        precondition(!split || version >= 9, "split models need format 9")
        var payload = ByteWriter()
        payload.version = version
        payload.split = split
        model.encodePayload(into: &payload)
        var writer = ByteWriter()
        writer.append(magic)
        writer.write(UInt16(version))
        writer.write(Model.kind)
        if version >= 9 { writer.write(split) }
        writer.write(UInt64(payload.bytes.count))
        writer.append(payload.bytes)
        if split {
            writer.write(UInt64(payload.heavy.count))
            writer.write(checksum(payload.heavy[...], version: version))
            if version >= 12 {
                let prefix = payload.heavy[..<(payload.heavyTailStart ?? payload.heavy.count)]
                writer.write(UInt64(prefix.count))
                writer.write(checksum(prefix, version: version))
            }
        }
        writer.write(checksum(writer.bytes[...], version: version))
        return (writer.bytes, payload.heavy)
    }

    /// What reading a light part without its heavy part is allowed to give.
    enum Reading {
        /// A whole model: the archive is in one piece, or `heavy` is its heavy part.
        case whole(heavy: [UInt8]?)
        /// A split archive's light part alone, for scoring only (a whole archive reads whole).
        case lightAlone
        /// A split archive's light part and `prefix`, its heavy part before the tail (version 12 on).
        case withoutTail(prefix: [UInt8])
    }

    /// The size of a split archive's trailer, before the final checksum.
    static func splitTrailerSize(version: Int) -> Int { version >= 12 ? 32 : 16 }

    /// Checks the envelope (and a heavy part against the light part's length and checksum).
    /// - Returns: the kind and a reader positioned on the payload.
    /// - Throws: `ModelFormatError` for a foreign, truncated or corrupt file, or parts of different saves.
    static func open(_ bytes: [UInt8], _ reading: Reading = .whole(heavy: nil)) throws(ModelFormatError) -> (kind: String, payload: ByteReader) {
        guard bytes.count >= magic.count, Array(bytes[0 ..< magic.count]) == magic else { throw .notAModel }
        var reader = ByteReader(bytes, offset: magic.count)
        let version = Int(try reader.read(UInt16.self, "format version"))
        guard (oldestReadableVersion ... formatVersion).contains(version) else {
            throw .unsupportedVersion(found: version, supported: formatVersion)
        }
        let kind = try reader.readString("kind")
        let split = version >= 9 ? try reader.readBool("parts") : false
        let length = try reader.read(UInt64.self, "payload length")
        let trailerSize = (split ? splitTrailerSize(version: version) : 0) + 8
        guard length <= UInt64(reader.remaining), reader.remaining - Int(length) >= trailerSize else {
            throw .truncated(field: "payload", offset: reader.offset)
        }
        let payloadStart = reader.offset
        let payloadEnd = payloadStart + Int(length)
        var trailer = ByteReader(bytes, offset: payloadEnd)
        let heavyLength = split ? try trailer.read(UInt64.self, "heavy part length") : 0
        let heavyChecksum = split ? try trailer.read(UInt64.self, "heavy part checksum") : 0
        let hasPrefix = split && version >= 12
        let prefixLength = hasPrefix ? try trailer.read(UInt64.self, "heavy prefix length") : heavyLength
        let prefixChecksum = hasPrefix ? try trailer.read(UInt64.self, "heavy prefix checksum") : heavyChecksum
        let checked = trailer.offset
        let stored = try trailer.read(UInt64.self, "checksum")
        let computed = checksum(bytes[0 ..< checked], version: version)
        guard stored == computed else { throw .checksumMismatch(stored: stored, computed: computed) }
        guard trailer.remaining == 0 else { throw .invalid(field: "file", reason: "\(trailer.remaining) bytes after the checksum") }
        var payload = ByteReader(bytes, offset: payloadStart, end: payloadEnd)
        payload.version = version
        switch (split, reading) {
        case (false, .lightAlone), (false, .whole(heavy: nil)):
            break
        case (false, .whole(heavy: .some)), (false, .withoutTail):
            throw .invalid(field: "heavy part", reason: "given for a model saved in one piece")
        case let (true, .withoutTail(prefix)) where hasPrefix:
            guard prefixLength <= heavyLength, UInt64(prefix.count) == prefixLength, checksum(prefix[...], version: version) == prefixChecksum else {
                throw .invalid(field: "heavy part", reason: "not the start of the one saved with this light part (\(prefix.count) bytes, \(prefixLength) expected, or another checksum)")
            }
            var heavyReader = ByteReader(prefix)
            heavyReader.version = version
            payload.parts = .heavyWithoutTail(ByteReader.HeavyReader(heavyReader))
        case (true, .withoutTail):
            throw .invalid(field: "heavy part", reason: "read without its tail from a model saved in format \(version), before 12")
        case (true, .lightAlone):
            payload.parts = .lightOnly
        case (true, .whole(heavy: nil)):
            throw .invalid(field: "heavy part", reason: "missing: this is the light part of a model saved in two")
        case let (true, .whole(heavy: .some(heavy))):
            guard UInt64(heavy.count) == heavyLength, checksum(heavy[...], version: version) == heavyChecksum else {
                throw .invalid(field: "heavy part", reason: "not the one saved with this light part (\(heavy.count) bytes, \(heavyLength) expected, or another checksum)")
            }
            var heavyReader = ByteReader(heavy)
            heavyReader.version = version
            payload.parts = .heavy(ByteReader.HeavyReader(heavyReader))
        }
        return (kind, payload)
    }

    /// Throws unless every byte of the payload and of a heavy part was read.
    static func checkFullyRead(_ payload: ByteReader) throws(ModelFormatError) {
        guard payload.remaining == 0 else { throw .invalid(field: "payload", reason: "\(payload.remaining) unread bytes") }
        switch payload.parts {
        case let .heavy(box), let .heavyWithoutTail(box):
            guard box.reader.remaining == 0 else { throw .invalid(field: "heavy part", reason: "\(box.reader.remaining) unread bytes") }
        case .whole, .lightOnly:
            break
        }
    }

    /// Reads a model of a known type. - Throws: `ModelFormatError` (also `.wrongKind`).
    static func decode<Model: ArchivedModel>(_: Model.Type, from bytes: [UInt8], heavy: [UInt8]? = nil) throws(ModelFormatError) -> Model {
        var (kind, payload) = try open(bytes, .whole(heavy: heavy))
        guard kind == Model.kind else { throw .wrongKind(expected: Model.kind, found: kind) }
        let model = try Model(payload: &payload)
        try checkFullyRead(payload)
        return model
    }

    /// Reads any model this build knows, by the kind in its header: in one piece, or `bytes` the light
    /// part of a split model (`PersistentModel.serializedParts()`) and `heavy` its heavy part.
    /// - Throws: `ModelFormatError`, also for a split model without its heavy part or with another save's.
    ///
    /// ```swift
    /// let (light, heavy) = model.serializedParts()
    /// let same = try ModelArchive.decodeAny(light, heavy: heavy)
    /// ```
    package static func decodeAny(_ bytes: [UInt8], heavy: [UInt8]? = nil) throws(ModelFormatError) -> any PersistentModel {
        try decodeAny(bytes, .whole(heavy: heavy))
    }

    /// The light part of a split model read alone: a model for scoring moments at or after its newest
    /// learned event, and nothing else. Its blend has no training rows and its log no records: it must
    /// not learn, unlearn, refit, explain, score an earlier moment or be saved (reading its events
    /// stops the process). A model in one piece reads whole.
    /// - Throws: `ModelFormatError` as `decodeAny`.
    package static func decodeForScoring(_ bytes: [UInt8]) throws(ModelFormatError) -> any PersistentModel {
        try decodeAny(bytes, .lightAlone)
    }

    /// The light part of a split model with `heavyPrefix`, the start of its heavy part that
    /// `heavyPrefixLength(of:)` gives: a model that scores and explains moments at or after its newest
    /// learned event. Its blend has no training rows, so it must not learn, unlearn, refit or be saved.
    /// - Throws: `ModelFormatError` as `decodeAny`, also for a state saved before format 12 (read it whole)
    ///   or a prefix of another save.
    ///
    /// ```swift
    /// let (light, heavy) = model.serializedParts()
    /// let prefix = Array(heavy.prefix(ModelArchive.heavyPrefixLength(of: light) ?? heavy.count))
    /// let explaining = try ModelArchive.decodeWithoutTail(light, heavyPrefix: prefix)
    /// ```
    package static func decodeWithoutTail(_ bytes: [UInt8], heavyPrefix: [UInt8]) throws(ModelFormatError) -> any PersistentModel {
        try decodeAny(bytes, .withoutTail(prefix: heavyPrefix))
    }

    /// How many bytes at the start of the heavy part `decodeWithoutTail` reads, from the light part's
    /// trailer (its checksum is checked when the model is decoded, not here).
    /// - Returns: nil for anything but the light part of a split model saved in format 12 or later.
    package static func heavyPrefixLength(of bytes: [UInt8]) -> Int? {
        guard bytes.count >= magic.count + 2, Array(bytes[0 ..< magic.count]) == magic else { return nil }
        var reader = ByteReader(bytes, offset: magic.count)
        guard let version = try? Int(reader.read(UInt16.self, "format version")), (12 ... formatVersion).contains(version),
              (try? reader.readString("kind")) != nil, (try? reader.readBool("parts")) == true,
              bytes.count >= 8 + splitTrailerSize(version: version) + reader.offset else { return nil }
        var trailer = ByteReader(bytes, offset: bytes.count - 8 - 16)
        guard let length = try? trailer.read(UInt64.self, "heavy prefix length"), length <= UInt64(Int.max) else { return nil }
        return Int(length)
    }

    /// Whether `bytes` are the light part of a split model (false for anything else, a foreign file included).
    package static func isLightPart(_ bytes: [UInt8]) -> Bool {
        guard let (_, payload) = try? open(bytes, .lightAlone) else { return false }
        return payload.parts.isSplit
    }

    static func decodeAny(_ bytes: [UInt8], _ reading: Reading) throws(ModelFormatError) -> any PersistentModel {
        var (kind, payload) = try open(bytes, reading)  // the checksum is computed once
        let model: any PersistentModel
        switch kind {
        case ProfileModel.kind: model = try ProfileModel(payload: &payload)
        case LogisticModel.kind: model = try LogisticModel(payload: &payload)
        case BlendModel.kind: model = try BlendModel(payload: &payload)
        default: throw .unknownKind(kind)
        }
        try checkFullyRead(payload)
        return model
    }
}

// The public coding entry points of each saved model (the witnesses of `PersistentModel`).
extension ProfileModel {
    public func serialized() -> [UInt8] { ModelArchive.encode(self) }
    public func serializedParts() -> (light: [UInt8], heavy: [UInt8]) { ModelArchive.encodeParts(self, split: true) }
    public init(serialized bytes: [UInt8]) throws(ModelFormatError) { self = try ModelArchive.decode(Self.self, from: bytes) }
}

extension LogisticModel {
    public func serialized() -> [UInt8] { ModelArchive.encode(self) }
    public func serializedParts() -> (light: [UInt8], heavy: [UInt8]) { ModelArchive.encodeParts(self, split: true) }
    public init(serialized bytes: [UInt8]) throws(ModelFormatError) { self = try ModelArchive.decode(Self.self, from: bytes) }
}

extension BlendModel {
    public func serialized() -> [UInt8] { ModelArchive.encode(self) }
    public func serializedParts() -> (light: [UInt8], heavy: [UInt8]) { ModelArchive.encodeParts(self, split: true) }
    public init(serialized bytes: [UInt8]) throws(ModelFormatError) { self = try ModelArchive.decode(Self.self, from: bytes) }
}
