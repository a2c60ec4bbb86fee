@_spi(GQLGateInternals) import GQLGateCore
@testable import GQLGateExchanges
@_spi(GQLGateInternals) import GQLGatePipeline
import Synchronization
import Testing

/// A token endpoint stand-in: counts fetches, answers from a script, and can
/// hold every fetch until the test opens the gate.
private final class FakeTokenEndpoint: Sendable {
    private let state = Lock<(fetches: Int, gate: [CheckedContinuation<Void, Never>], open: Bool, failing: Bool)>((0, [], true, false))
    let lifetime: Duration?

    init(lifetime: Duration? = .seconds(100), gated: Bool = false) {
        self.lifetime = lifetime
        state.withLock { $0.open = !gated }
    }

    var fetches: Int { state.withLock { $0.fetches } }
    var waitingAtGate: Int { state.withLock { $0.gate.count } }

    func setFailing(_ failing: Bool) { state.withLock { $0.failing = failing } }

    func openGate() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.gate = [] }
            return state.gate
        }
        for continuation in waiting { continuation.resume() }
    }

    var fetch: OAuth2ClientCredentials.Fetch {
        { [self] in
            let (number, open) = state.withLock { state -> (Int, Bool) in
                state.fetches += 1
                return (state.fetches, state.open)
            }
            if !open {
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { state -> Bool in
                        if state.open { return true }
                        state.gate.append(continuation)
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
            if state.withLock({ $0.failing }) { return .failure(.upstreamAuthFailed("endpoint down")) }
            return .success(OAuth2TokenResponse(accessToken: "token-\(number)", lifetime: lifetime))
        }
    }
}

private func waitUntil(_ condition: () -> Bool) async {
    while !condition() { await Task.yield() }
}

@Suite struct OAuth2ClientCredentialsTests {
    @Test func hundredConcurrentOperationsCauseOneFetch() async throws {
        let endpoint = FakeTokenEndpoint(gated: true)
        let clock = ManualClock()
        let credentials = OAuth2ClientCredentials(fetch: endpoint.fetch, clock: clock.clock)
        let tokens = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<100 { group.addTask { try? await credentials.token().value } }
            await waitUntil { endpoint.waitingAtGate == 1 }
            endpoint.openGate()
            var values: [String?] = []
            for await value in group { values.append(value) }
            return values
        }
        #expect(endpoint.fetches == 1)
        #expect(Set(tokens) == ["token-1"])
    }

    @Test func tokenIsCachedThenRefreshedInTheBackgroundBeforeExpiry() async throws {
        let endpoint = FakeTokenEndpoint(lifetime: .seconds(100))
        let clock = ManualClock()
        let credentials = OAuth2ClientCredentials(fetch: endpoint.fetch, clock: clock.clock)
        #expect(try await credentials.token().value == "token-1")
        clock.advance(by: .seconds(79))
        #expect(try await credentials.token().value == "token-1")
        #expect(endpoint.fetches == 1)
        clock.advance(by: .seconds(2))   // 81 s: inside the last fifth of the lifetime
        #expect(try await credentials.token().value == "token-1", "the old token is still sent while the new one comes")
        await waitUntil { endpoint.fetches == 2 }
        var fresh = try await credentials.token().value
        while fresh == "token-1" {
            await Task.yield()
            fresh = try await credentials.token().value
        }
        #expect(fresh == "token-2")
        #expect(endpoint.fetches == 2)
    }

    @Test func expiredTokenIsNeverSent() async throws {
        let endpoint = FakeTokenEndpoint(lifetime: .seconds(10))
        let clock = ManualClock()
        let credentials = OAuth2ClientCredentials(fetch: endpoint.fetch, clock: clock.clock)
        _ = try await credentials.token()
        clock.advance(by: .seconds(11))
        #expect(try await credentials.token().value == "token-2")
    }

    @Test func rejectedTokenIsReplacedOnceForAllWhoSawIt() async throws {
        let endpoint = FakeTokenEndpoint()
        let credentials = OAuth2ClientCredentials(fetch: endpoint.fetch, clock: ManualClock().clock)
        let first = try await credentials.token()
        credentials.rejected(first)
        let second = try await credentials.token()
        credentials.rejected(first)   // a late 401 for the old token changes nothing
        #expect(second.value == "token-2")
        #expect(try await credentials.token() == second)
        #expect(endpoint.fetches == 2)
    }

    @Test func failingEndpointIsAskedAgainOnlyAfterABackoff() async throws {
        let endpoint = FakeTokenEndpoint()
        endpoint.setFailing(true)
        let clock = ManualClock()
        let credentials = OAuth2ClientCredentials(fetch: endpoint.fetch, clock: clock.clock)
        for _ in 0..<5 {
            await #expect(throws: GatewayError.upstreamAuthFailed("endpoint down")) { try await credentials.token() }
        }
        #expect(endpoint.fetches == 1)
        clock.advance(by: .seconds(1))
        await #expect(throws: GatewayError.self) { try await credentials.token() }
        #expect(endpoint.fetches == 2)
        clock.advance(by: .seconds(1))   // the second failure backs off 2 s
        await #expect(throws: GatewayError.self) { try await credentials.token() }
        #expect(endpoint.fetches == 2)
        endpoint.setFailing(false)
        clock.advance(by: .seconds(1))
        #expect(try await credentials.token().value == "token-3")
    }

    @Test func backoffDoublesUpToThirtySeconds() {
        #expect((0..<7).map { OAuth2ClientCredentials.backoff.delay(forAttempt: $0) } == [1, 2, 4, 8, 16, 30, 30].map { Duration.seconds($0) })
    }

    @Test func cancelledWaiterDoesNotStrandTheOthers() async throws {
        let endpoint = FakeTokenEndpoint(gated: true)
        let credentials = OAuth2ClientCredentials(fetch: endpoint.fetch, clock: ManualClock().clock)
        let leader = Task { try await credentials.token() }
        await waitUntil { endpoint.waitingAtGate == 1 }
        let follower = Task { try await credentials.token() }
        leader.cancel()
        endpoint.openGate()
        #expect(try await follower.value.value == "token-1")
        _ = try? await leader.value
        #expect(endpoint.fetches == 1)
    }
}

@Suite struct BearerTokenFileTests {
    @Test func tokenIsTheTrimmedFileAndFollowsRotation() async throws {
        let file = TemporaryFile("  first-token\n")
        let clock = ManualClock()
        let facts = RecordedFacts()
        let tokens = BearerTokenFile(path: file.path, clock: clock.clock, recorder: facts)
        let first = try tokens.token()
        #expect(first.value == "first-token")
        file.write("second-token\n")
        #expect(try tokens.token() == first, "checked at most once a second")
        clock.advance(by: .seconds(1))
        let second = try tokens.token()
        #expect(second.value == "second-token")
        #expect(second.generation > first.generation)
        #expect(facts.gatewayFacts.count == 2)
    }

    @Test func removedFileKeepsTheLastGoodToken() throws {
        let file = TemporaryFile("good")
        let clock = ManualClock()
        let tokens = BearerTokenFile(path: file.path, clock: clock.clock)
        let good = try tokens.token()
        file.write("")
        clock.advance(by: .seconds(1))
        #expect(try tokens.token() == good)
    }

    @Test func rejectionRereadsTheFileAtOnce() throws {
        let file = TemporaryFile("old")
        let tokens = BearerTokenFile(path: file.path, clock: ManualClock().clock)
        let old = try tokens.token()
        file.write("new")
        tokens.rejected(old)
        #expect(try tokens.token().value == "new")
    }

    @Test func rejectionRereadsAFileWhoseSizeInodeAndTimeStampDidNotChange() throws {
        let file = TemporaryFile("token-one")
        let tokens = BearerTokenFile(path: file.path, clock: ManualClock().clock)
        let old = try tokens.token()
        let stamp = WatchedFile.stamp(of: file.path)
        file.overwriteKeepingStamp("token-two")
        #expect(WatchedFile.stamp(of: file.path) == stamp)
        tokens.rejected(old)
        #expect(try tokens.token().value == "token-two")
    }

    @Test func missingOrEmptyFileIsUpstreamAuthFailed() {
        #expect(throws: GatewayError.self) { try BearerTokenFile(path: "/nonexistent/token").token() }
        let empty = TemporaryFile(" \n")
        do {
            _ = try BearerTokenFile(path: empty.path).token()
            Issue.record("an empty token file gave a token")
        } catch {
            #expect(error.code == "UPSTREAM_AUTH_FAILED")
            #expect(error.status == 502)
        }
    }
}

@Suite struct OAuth2TokenExchangeFormatTests {
    private func request(_ auth: OAuth2TokenRequest.ClientAuthentication) -> (headers: HTTPHeaders, body: String) {
        let (headers, body) = OAuth2TokenRequest(
            tokenURL: "https://id.example/token", clientID: "s6BhdRkqt3", clientSecret: "7Fjfp0ZBr1KtDRbnfVdmIw",
            scope: "api:read api:write", clientAuthentication: auth).encoded()
        return (headers, body.string)
    }

    @Test func basicClientAuthenticationFollowsRFC6749() {
        let sent = request(.basic)
        #expect(sent.headers["Authorization"] == "Basic czZCaGRSa3F0Mzo3RmpmcDBaQnIxS3REUmJuZlZkbUl3")
        #expect(sent.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(sent.body == "grant_type=client_credentials&scope=api%3Aread%20api%3Awrite")
    }

    @Test func postClientAuthenticationPutsTheSecretInTheBody() {
        let sent = request(.post)
        #expect(sent.headers["Authorization"] == nil)
        #expect(sent.body == "grant_type=client_credentials&scope=api%3Aread%20api%3Awrite&client_id=s6BhdRkqt3&client_secret=7Fjfp0ZBr1KtDRbnfVdmIw")
    }

    @Test func readsTokenAndLifetime() throws {
        let ok = OAuth2TokenResponse.parse(status: 200, body: Bytes(#"{"access_token":"abc","token_type":"bearer","expires_in":300}"#), endpoint: "E")
        #expect(try ok.get() == OAuth2TokenResponse(accessToken: "abc", lifetime: .seconds(300)))
        let noExpiry = OAuth2TokenResponse.parse(status: 200, body: Bytes(#"{"access_token":"abc"}"#), endpoint: "E")
        #expect(try noExpiry.get().lifetime == nil)
    }

    @Test(arguments: [("2.5", Duration.milliseconds(2500)), ("1e400", .seconds(31_536_000)), ("9223372036854775807", .seconds(31_536_000)),
                      ("12345678901234567890", .seconds(31_536_000)), ("\"60\"", .seconds(60)), ("0", nil), ("-1e3", nil)])
    func lifetimesAreReadFromEveryFormAndCappedAtAYear(expiresIn: String, lifetime: Duration?) throws {
        let body = Bytes(#"{"access_token":"abc","expires_in":"# + expiresIn + "}")
        #expect(try OAuth2TokenResponse.parse(status: 200, body: body, endpoint: "E").get().lifetime == lifetime)
    }

    @Test(arguments: [
        (401, #"{"error":"invalid_client"}"#, "The token endpoint E answered 401 (invalid_client)."),
        (200, #"{"token_type":"bearer"}"#, "The token endpoint E sent no usable access_token."),
        (200, "not json", "The token endpoint E sent no usable access_token."),
        (200, #"{"access_token":"a","token_type":"mac"}"#, "The token endpoint E sent a mac token; gqlgate sends Bearer tokens."),
    ])
    func failuresNameTheProblemAndNoSecret(status: Int, body: String, message: String) {
        let result = OAuth2TokenResponse.parse(status: status, body: Bytes(body), endpoint: "E")
        #expect(throws: GatewayError.upstreamAuthFailed(message)) { try result.get() }
    }
}
