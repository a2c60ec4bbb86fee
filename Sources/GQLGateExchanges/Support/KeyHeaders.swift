package import GQLGateCore

/// The client header fields whose values make two queries different for the
/// response cache and dedupe: everything of the client's that reaches the
/// upstream and may change its answer. Two requests that differ in one of
/// them never share an answer.
package struct KeyHeaders: Sendable, Equatable {
    /// `cache.vary_headers`, lower case: who the client is. An answer marked
    /// `private` is stored only for a request that carries one of them.
    package var scope: [String]
    /// The other client fields the upstream is sent (`headers.forward`, the
    /// client's `Authorization` where forwarded), lower case, but `unkeyed`.
    package var forwarded: [String]
    /// Forwarded fields the answer does not depend on (`headers.unkeyed`:
    /// trace context), left out of keys. An upstream answer whose `Vary`
    /// names one is neither stored nor shared.
    package var unkeyed: [String]

    /// - Parameters:
    ///   - scope: the fields that say who the client is.
    ///   - forwarded: every client field sent upstream; those in `scope` or `unkeyed` are dropped.
    ///   - unkeyed: forwarded fields that do not change the answer.
    package init(scope: [String] = ["authorization"], forwarded: [String] = [], unkeyed: [String] = []) {
        self.scope = scope.map { $0.lowercased() }
        let unkeyed = unkeyed.map { $0.lowercased() }
        self.unkeyed = unkeyed
        var others: [String] = []
        for name in forwarded.map({ $0.lowercased() }) where !self.scope.contains(name) && !unkeyed.contains(name) && !others.contains(name) {
            others.append(name)
        }
        self.forwarded = others
    }

    /// Whether an upstream answer with `headers` may be given to another
    /// request of the same key (stored in the cache, shared by dedupe): not
    /// when it sets a cookie (a session is one client's), nor when its `Vary`
    /// is `*` or names a field left out of the key (RFC 9111 §4.1).
    package func answerIsShareable(_ headers: HTTPHeaders) -> Bool {
        if headers["set-cookie"] != nil { return false }
        for value in headers.values(for: "vary") {
            for name in value.split(separator: ",") {
                let field = String(name.trimmingASCIISpaces())
                if field == "*" { return false }
                if unkeyed.contains(where: { field.equalsIgnoringASCIICase($0) }) { return false }
            }
        }
        return true
    }
}
