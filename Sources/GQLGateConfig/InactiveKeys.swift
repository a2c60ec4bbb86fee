extension GatewayConfig {
    /// The keys whose features are not built yet: they are parsed and validated, but have no effect.
    /// Remove a prefix here when its feature lands.
    static let inactiveKeyPrefixes: [String] = []

    /// The keys set to something other than their default whose features are not built yet, as
    /// `section.key` paths in file order (`auth.oauth2`, `cache.enabled`); for a warning at startup.
    public func inactiveKeys() -> [String] {
        let defaults = Dictionary(
            RenderedNode.flatten(GatewayConfig().renderedSections(redactingSecrets: false)).map { ($0.path, $0.text) },
            uniquingKeysWith: { first, _ in first }
        )
        var keys: [String] = []
        for (path, text) in RenderedNode.flatten(renderedSections(redactingSecrets: false)) where defaults[path] != text {
            let isInactive = Self.inactiveKeyPrefixes.contains { path == $0 || path.hasPrefix($0 + ".") }
            let key = path.split(separator: ".").prefix(2).joined(separator: ".")
            if isInactive, !keys.contains(key) { keys.append(key) }
        }
        return keys
    }
}
