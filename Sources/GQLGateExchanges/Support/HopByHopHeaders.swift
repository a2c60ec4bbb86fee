import GQLGateCore

/// RFC 9110 §7.6.1: header fields that describe one connection and must not
/// be forwarded by a proxy, plus every field the `Connection` header names.
public enum HopByHopHeaders {
    static let names: [String] = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authorization",
    ]

    /// `headers` without hop-by-hop fields and without `Content-Length`
    /// (the server recomputes it for the body it sends).
    public static func removing(from headers: HTTPHeaders) -> HTTPHeaders {
        var named = Set<String>()
        for value in headers.values(for: "connection") {
            for token in value.split(separator: ",") {
                named.insert(token.trimmingSpaces().lowercased())
            }
        }
        return HTTPHeaders(headers.fields.filter { field in
            !field.name.equalsIgnoringASCIICase("content-length") && !names.contains { field.name.equalsIgnoringASCIICase($0) }
                && (named.isEmpty || !named.contains(field.name.lowercased()))
        })
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var slice = self
        while slice.first == " " || slice.first == "\t" { slice = slice.dropFirst() }
        while slice.last == " " || slice.last == "\t" { slice = slice.dropLast() }
        return slice
    }
}
