@_spi(GQLGateInternals) import GQLGatePipeline
@testable import GQLGateRedis
import Testing

@Suite struct RedisAvailabilityTests {
    private final class Connection {}

    /// The `gqlgate_redis_up` values stated, in order.
    private func states(_ facts: GatewayFacts) -> [Bool] {
        facts.all.compactMap { if case .redisAvailabilityChanged(let up) = $0 { up } else { nil } }
    }

    @Test func redisIsUpOnlyWhileNoConnectionIsFailing() {
        let facts = GatewayFacts()
        let availability = RedisAvailability(logger: nil, recorder: facts, server: "cluster")
        let connections = [Connection(), Connection(), Connection()]  // kept: identifiers of live objects differ
        let (a, b, c) = (ObjectIdentifier(connections[0]), ObjectIdentifier(connections[1]), ObjectIdentifier(connections[2]))
        availability.ready(a)
        availability.ready(b)
        #expect(states(facts) == [false, true])
        availability.failed(a, "connection refused")
        availability.failed(a, "connection refused")
        // Another node's connection made meanwhile does not hide the one still failing.
        availability.ready(c)
        #expect(availability.isDown)
        #expect(states(facts) == [false, true, false])
        availability.ready(a)
        #expect(!availability.isDown)
        availability.failed(b, "timed out")
        availability.closed(b)  // its node left the cluster's map
        #expect(states(facts) == [false, true, false, true, false, true])
        withExtendedLifetime(connections) {}
    }
}
