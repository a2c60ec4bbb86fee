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

    /// Removes from `headers`, in place, the hop-by-hop fields, the fields
    /// `Connection` names, and `Content-Length` (the server recomputes it for
    /// the body it sends); also the field named `alsoRemoving`, when given
    /// (one the caller sets itself).
    public static func remove(from headers: inout HTTPHeaders, alsoRemoving replaced: String? = nil) {
        let named = connectionNamedFields(headers)
        headers.removeAll { field in
            isHopByHop(field.name) || replaced.map { field.name.equalsIgnoringASCIICase($0) } == true
                || (!named.isEmpty && named.contains { field.name.equalsIgnoringASCIICase($0) })
        }
    }

    /// Field names listed in `Connection` other than the usual `keep-alive`
    /// and `close` (which name no field); usually none.
    private static func connectionNamedFields(_ headers: HTTPHeaders) -> [String] {
        headers.withFields { fields in
            var named: [String] = []
            for index in fields.indices where fields[index].name.equalsIgnoringASCIICase("connection") {
                let value = fields[index].value
                if value.equalsIgnoringASCIICase("keep-alive") || value.equalsIgnoringASCIICase("close") { continue }
                for token in value.split(separator: ",") {
                    let name = String(token.trimmingASCIISpaces())
                    if !isHopByHop(name), !name.equalsIgnoringASCIICase("close") { named.append(name) }
                }
            }
            return named
        }
    }
}
