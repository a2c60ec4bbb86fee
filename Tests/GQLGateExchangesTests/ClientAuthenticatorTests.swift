@_spi(GQLGateInternals) import GQLGateCore
@testable import GQLGateExchanges
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A temporary file, removed when the test ends.
final class TemporaryFile {
    let path: String

    init(_ text: String) {
        var template = Array("/tmp/gqlgate-test-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        close(fd)
        write(text)
    }

    /// Replaces the contents the way editors and Kubernetes do: a new file renamed over the old one.
    func write(_ text: String) {
        let next = path + ".next"
        let fd = open(next, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count - 1) }
        close(fd)
        rename(next, path)
    }

    /// Rewrites the contents in place (same inode) and puts the time stamps back as they were, so
    /// that `stat` sees the same file when the new text has the old length.
    func overwriteKeepingStamp(_ text: String) {
        var before = stat()
        stat(path, &before)
        let fd = open(path, O_WRONLY | O_TRUNC)
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count - 1) }
        var times = [before.st_atim, before.st_mtim]
        futimens(fd, &times)
        close(fd)
    }

    deinit { unlink(path) }
}

@Suite struct ClientAuthenticatorTests {
    @Test func acceptsKeysFromXApiKeyOrBearerAndNothingElse() throws {
        let file = TemporaryFile("# team keys\nalpha-key\n\n  beta-key  \n")
        let auth = try ClientAuthenticator(apiKeysFile: file.path)
        #expect(auth.authenticate(["X-Api-Key": "alpha-key"]))
        #expect(auth.authenticate(["Authorization": "Bearer beta-key"]))
        #expect(auth.authenticate(["authorization": "bearer  alpha-key "]))
        #expect(!auth.authenticate([:]))
        #expect(!auth.authenticate(["X-Api-Key": "alpha-ke"]))
        #expect(!auth.authenticate(["X-Api-Key": "# team keys"]), "comment lines are not keys")
        #expect(!auth.authenticate(["Authorization": "Basic YWxwaGEta2V5Og=="]))
        #expect(!auth.authenticate(["Authorization": "Bearer"]))
    }

    @Test func changedFileIsReadAgainAfterTheCheckInterval() throws {
        let file = TemporaryFile("old-key\n")
        let clock = ManualClock()
        let auth = try ClientAuthenticator(apiKeysFile: file.path, clock: clock.clock)
        #expect(auth.authenticate(["X-Api-Key": "old-key"]))
        file.write("new-key\n")
        #expect(auth.authenticate(["X-Api-Key": "old-key"]), "checked at most once a second")
        clock.advance(by: .seconds(1))
        #expect(auth.authenticate(["X-Api-Key": "new-key"]))
        #expect(!auth.authenticate(["X-Api-Key": "old-key"]))
    }

    @Test func emptiedFileKeepsTheKeysReadLast() throws {
        let file = TemporaryFile("steady-key\n")
        let clock = ManualClock()
        let auth = try ClientAuthenticator(apiKeysFile: file.path, clock: clock.clock)
        file.write("\n# nothing here\n")
        clock.advance(by: .seconds(2))
        #expect(auth.authenticate(["X-Api-Key": "steady-key"]))
    }

    @Test func missingOrEmptyFileIsRefusedAtStart() {
        #expect(throws: ClientAuthenticator.FileError.self) { try ClientAuthenticator(apiKeysFile: "/nonexistent/keys") }
        let empty = TemporaryFile("# no keys yet\n")
        #expect(throws: ClientAuthenticator.FileError.self) { try ClientAuthenticator(apiKeysFile: empty.path) }
    }

    @Test func rejectionIs401WithAChallenge() {
        let error = ClientAuthenticator.rejection
        #expect(error.status == 401)
        #expect(error.code == "UNAUTHENTICATED")
        #expect(error.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
    }

    @Test func keyComparisonMatchesOnlyWholeKeys() {
        let keys = ClientKeys(fileText: "k1\r\nk2\n")
        #expect(keys.count == 2)
        #expect(keys.contains("k1") && keys.contains("k2"))
        #expect(!keys.contains("k") && !keys.contains("k12") && !keys.contains(""))
    }
}
