package import GQLGateCore

/// The `Cache-Control` directives the response cache acts on (RFC 9111
/// §5.2), read from every `Cache-Control` field of a request or response.
package struct CacheControlDirectives: Sendable, Equatable {
    package var noStore = false
    package var noCache = false
    package var isPrivate = false
    /// `max-age`, when given.
    package var maxAge: Duration?
    /// `s-maxage`, when given: overrides `max-age` in a shared cache.
    package var sharedMaxAge: Duration?

    package init(_ headers: HTTPHeaders) {
        let values = headers.values(for: "cache-control")
        for value in values {
            for token in value.split(separator: ",") {
                let parts = token.split(separator: "=", maxSplits: 1)
                let name = String(parts[0].trimmingASCIISpaces()).lowercased()
                let argument = parts.count == 2 ? String(parts[1].trimmingASCIISpaces().filter { $0 != "\"" }) : nil
                switch name {
                case "no-store": noStore = true
                case "no-cache": noCache = true
                case "private": isPrivate = true
                case "max-age": maxAge = argument.flatMap(Self.seconds) ?? .zero
                case "s-maxage": sharedMaxAge = argument.flatMap(Self.seconds) ?? .zero
                default: continue
                }
            }
        }
    }

    /// How long a shared cache may keep the answer, when the directives say.
    package var freshnessLifetime: Duration? { sharedMaxAge ?? maxAge }

    private static func seconds(_ text: String) -> Duration? {
        Int(text).map { .seconds(max(0, $0)) }
    }
}
