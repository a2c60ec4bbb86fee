import GQLGateCore

/// RFC 9110 §7.6.1: header fields that describe one connection and must not
/// be forwarded by a proxy, plus every field the `Connection` header names.
public enum HopByHopHeaders {
    /// Whether `name` is a hop-by-hop field or `Content-Length`: compared by
    /// length first, so most end-to-end names cost one integer comparison.
    public static func isHopByHop(_ name: String) -> Bool {
        switch name.utf8.count {
        case 2: return name.equalsIgnoringASCIICase("te")
        case 7: return name.equalsIgnoringASCIICase("trailer") || name.equalsIgnoringASCIICase("upgrade")
        case 10: return name.equalsIgnoringASCIICase("connection") || name.equalsIgnoringASCIICase("keep-alive")
        case 14: return name.equalsIgnoringASCIICase("content-length")
        case 16: return name.equalsIgnoringASCIICase("proxy-connection")
        case 17: return name.equalsIgnoringASCIICase("transfer-encoding")
        case 18: return name.equalsIgnoringASCIICase("proxy-authenticate")
        case 19: return name.equalsIgnoringASCIICase("proxy-authorization")
        default: return false
        }
    }

    /// `headers` without hop-by-hop fields, without the fields `Connection`
    /// names, and without `Content-Length` (the server recomputes it for the
    /// body it sends); without `alsoRemoving` either, when given (a field the
    /// caller sets itself, with room left to add it).
    public static func removing(from headers: HTTPHeaders, alsoRemoving replaced: String? = nil) -> HTTPHeaders {
        let named = connectionNamedFields(headers)
        var kept: [HTTPHeaders.Field] = []
        kept.reserveCapacity(headers.count + 1)
        for field in headers.fields where !isHopByHop(field.name) {
            if let replaced, field.name.equalsIgnoringASCIICase(replaced) { continue }
            if !named.isEmpty, named.contains(where: { field.name.equalsIgnoringASCIICase($0) }) { continue }
            kept.append(field)
        }
        return HTTPHeaders(kept)
    }

    /// Field names listed in `Connection` other than the usual `keep-alive`
    /// and `close` (which name no field); usually none.
    private static func connectionNamedFields(_ headers: HTTPHeaders) -> [String] {
        var named: [String] = []
        for field in headers.fields where field.name.equalsIgnoringASCIICase("connection") {
            if field.value.equalsIgnoringASCIICase("keep-alive") || field.value.equalsIgnoringASCIICase("close") { continue }
            for token in field.value.split(separator: ",") {
                let name = String(token.trimmingASCIISpaces())
                if !isHopByHop(name), !name.equalsIgnoringASCIICase("close") { named.append(name) }
            }
        }
        return named
    }
}
