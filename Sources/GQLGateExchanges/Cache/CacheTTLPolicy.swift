/// How long a cached answer stays fresh: the minimum of the default TTL, the
/// upstream's `Cache-Control` (`s-maxage`, else `max-age`) and the TTL of
/// every object type the answer holds below the root (types not listed count
/// as the default TTL).
package struct CacheTTLPolicy: Sendable, Equatable {
    /// `cache.default_ttl`.
    package var defaultTTL: Duration
    /// `cache.types`: TTL per GraphQL object type name.
    package var typeTTLs: [String: Duration]

    package init(defaultTTL: Duration = .seconds(30), typeTTLs: [String: Duration] = [:]) {
        self.defaultTTL = defaultTTL
        self.typeTTLs = typeTTLs
    }

    /// The TTL of an answer holding `types` whose upstream said `directives`.
    package func ttl(types: Set<String>, directives: CacheControlDirectives) -> Duration {
        var ttl = defaultTTL
        if let upstream = directives.freshnessLifetime { ttl = min(ttl, upstream) }
        for type in types {
            if let typeTTL = typeTTLs[type] { ttl = min(ttl, typeTTL) }
        }
        return ttl
    }
}
