import GQLGateConfig
import GQLGateCore

/// What `cors` lets browser pages on other origins do: the fields an answer
/// to an allowed origin carries, the answer to a preflight, and whether a
/// WebSocket upgrade's `Origin` may connect. Built once per configuration load.
struct CORSPolicy: Sendable {
    /// `cors.allow_origins` is `"*"`: every origin, answered `Access-Control-Allow-Origin: *`.
    private let allowsAny: Bool
    private let origins: [String]
    private let allowCredentials: Bool
    /// `cors.allow_headers` joined; nil mirrors the preflight's `Access-Control-Request-Headers`.
    private let allowHeaders: String?
    private let exposeHeaders: String?
    private let maxAge: String
    /// What every answer carries when `Access-Control-Allow-Origin` is `*`, made once.
    private let anyOriginFields: HTTPHeaders
    /// What an answer to a request from no allowed origin carries with listed origins: `Vary: Origin`,
    /// so a shared cache does not hand it to an allowed origin.
    private let varyOnly: HTTPHeaders = ["Vary": "Origin"]

    /// The policy `config` sets; nil when `cors.allow_origins` is empty.
    init?(_ config: CORSConfig) {
        guard config.isEnabled else { return nil }
        allowsAny = config.allowOrigins == ["*"]
        origins = config.allowOrigins
        allowCredentials = config.allowCredentials
        allowHeaders = config.allowHeaders.isEmpty ? nil : config.allowHeaders.joined(separator: ", ")
        exposeHeaders = config.exposeHeaders.isEmpty ? nil : config.exposeHeaders.joined(separator: ", ")
        maxAge = String(max(0, config.maxAge.components.seconds))
        var fields: HTTPHeaders = ["Access-Control-Allow-Origin": "*"]
        if let exposeHeaders { fields.add(name: "Access-Control-Expose-Headers", value: exposeHeaders) }
        anyOriginFields = fields
    }

    /// Whether a page on `origin` may call gqlgate (exact, byte for byte: browsers send origins in lower case).
    func allows(origin: String) -> Bool {
        allowsAny || origins.contains(origin)
    }

    /// Whether a WebSocket upgrade with `origin` may connect: no `Origin` (a client that is no browser) may.
    func allowsUpgrade(origin: String?) -> Bool {
        origin.map(allows(origin:)) ?? true
    }

    /// The fields every answer to a request with `origin` carries: the CORS
    /// fields for an allowed origin; `Vary: Origin` alone otherwise (none
    /// with `"*"`, whose answers do not depend on the origin).
    func answerFields(origin: String?) -> HTTPHeaders? {
        if allowsAny { return origin == nil ? nil : anyOriginFields }
        guard let origin, origins.contains(origin) else { return varyOnly }
        var fields = HTTPHeaders()
        fields.reserveCapacity(4)
        fields.add(name: "Access-Control-Allow-Origin", value: origin)
        fields.add(name: "Vary", value: "Origin")
        if allowCredentials { fields.add(name: "Access-Control-Allow-Credentials", value: "true") }
        if let exposeHeaders { fields.add(name: "Access-Control-Expose-Headers", value: exposeHeaders) }
        return fields
    }

    /// The fields of the 204 answering a preflight from `origin` that asked
    /// for `requestedHeaders`, or nil when the origin is not allowed.
    func preflightFields(origin: String?, requestedHeaders: String?) -> HTTPHeaders? {
        guard let origin, allows(origin: origin) else { return nil }
        var fields: HTTPHeaders = [
            "Access-Control-Allow-Origin": allowsAny ? "*" : origin,
            "Access-Control-Allow-Methods": "GET, POST",
            "Access-Control-Max-Age": maxAge,
        ]
        if allowCredentials { fields.add(name: "Access-Control-Allow-Credentials", value: "true") }
        if let headers = allowHeaders ?? requestedHeaders.map({ String($0.trimmingASCIISpaces()) }), !headers.isEmpty {
            fields.add(name: "Access-Control-Allow-Headers", value: headers)
        }
        fields.add(name: "Vary", value: allowHeaders == nil ? "Origin, Access-Control-Request-Headers" : "Origin")
        return fields
    }
}
