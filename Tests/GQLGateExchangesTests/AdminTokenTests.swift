@_spi(GQLGateInternals) import GQLGateCore
@testable import GQLGateExchanges
import Testing

@Suite struct AdminTokenTests {
    @Test func acceptsOnlyTheBearerTokenOfTheFileTrimmed() throws {
        let file = TemporaryFile("s3cret-admin-token\n")
        let token = try AdminToken(file: file.path)
        #expect(token.accepts(["Authorization": "Bearer s3cret-admin-token"]))
        #expect(token.accepts(["authorization": "bearer  s3cret-admin-token "]))
        #expect(!token.accepts([:]))
        #expect(!token.accepts(["Authorization": "Bearer s3cret-admin-toke"]))
        #expect(!token.accepts(["Authorization": "Bearer s3cret-admin-token\n"]))
        #expect(!token.accepts(["Authorization": "Bearer s3cret-admin-tokenX"]))
        #expect(!token.accepts(["Authorization": "Basic czNjcmV0LWFkbWluLXRva2Vu"]))
        #expect(!token.accepts(["Authorization": "Bearer"]))
        #expect(!token.accepts(["X-Api-Key": "s3cret-admin-token"]), "only Authorization: Bearer")
    }

    @Test func theFilesTextIsTrimmed() {
        #expect(AdminToken.token(in: "  tok en \r\n") == "tok en")
        #expect(AdminToken.token(in: "\n\t \n") == nil)
        #expect(AdminToken.token(in: "") == nil)
    }

    @Test func missingOrEmptyFileIsRefused() {
        #expect(throws: AdminToken.FileError.self) { try AdminToken(file: "/nonexistent/admin-token") }
        let empty = TemporaryFile(" \n")
        #expect(throws: AdminToken.FileError.self) { try AdminToken(file: empty.path) }
        do {
            _ = try AdminToken(file: "/nonexistent/admin-token")
        } catch {
            #expect(error.description == "\"/nonexistent/admin-token\" is missing, unreadable or empty")
        }
    }

    @Test func aChangedFileIsReadAgainAndAnEmptiedOneKeepsTheTokenReadLast() throws {
        let file = TemporaryFile("old-token\n")
        let clock = ManualClock()
        let token = try AdminToken(file: file.path, clock: clock.clock)
        file.write("new-token\n")
        #expect(token.accepts(["Authorization": "Bearer old-token"]), "checked at most once a second")
        clock.advance(by: .seconds(1))
        #expect(token.accepts(["Authorization": "Bearer new-token"]))
        #expect(!token.accepts(["Authorization": "Bearer old-token"]))
        file.write("\n")
        clock.advance(by: .seconds(1))
        #expect(token.accepts(["Authorization": "Bearer new-token"]))
    }
}
