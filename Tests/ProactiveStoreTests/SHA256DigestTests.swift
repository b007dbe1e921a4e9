import Testing
import ProactiveStore

/// The credential hash (swift-crypto's SHA-256) against published and independently computed digests.
@Suite("SHA-256")
struct SHA256DigestTests {
    @Test(arguments: [
        // FIPS 180-4 examples (NIST): empty, "abc", the 448-bit two-block message, and a million "a".
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (String(repeating: "a", count: 1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
        // 64 bytes (padding takes a block of its own), and a credential's shape (sha256sum, Python hashlib).
        (String(repeating: "a", count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        ("pk_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "e0b6760a94bd5116d72b76f6e5a6fcdf78f9ca9ed00b8340ed9519d3459e06c3"),
    ])
    func digest(_ message: String, _ expected: String) {
        #expect(ServiceCredential.sha256Hex(Array(message.utf8)) == expected)
    }

    @Test func aCredentialIsStoredAsItsDigest() {
        let credential = "pk_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
        #expect(ServiceCredential.hash(credential) == "e0b6760a94bd5116d72b76f6e5a6fcdf78f9ca9ed00b8340ed9519d3459e06c3")
    }
}
