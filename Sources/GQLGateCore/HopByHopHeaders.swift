/// RFC 9110 §7.6.1: header fields that describe one connection and must not
/// be forwarded by a proxy, plus every field the `Connection` header names.
package enum HopByHopHeaders {
    /// Whether `name` is a hop-by-hop field or `Content-Length`: compared by
    /// length first, so most end-to-end names cost one integer comparison.
    package static func isHopByHop(_ name: String) -> Bool {
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

    /// The field names a `Connection` field's `value` lists, other than
    /// `keep-alive` and `close` (which name no field) and the hop-by-hop
    /// fields (dropped anyway); usually none.
    package static func fieldsNamed(byConnection value: String) -> [String] {
        if value.equalsIgnoringASCIICase("keep-alive") || value.equalsIgnoringASCIICase("close") { return [] }
        return value.split(separator: ",").map { String($0.trimmingASCIISpaces()) }.filter { name in
            !name.isEmpty && !isHopByHop(name) && !name.equalsIgnoringASCIICase("close")
        }
    }
}
