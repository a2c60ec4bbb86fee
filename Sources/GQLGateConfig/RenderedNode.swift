/// A value of the configuration as it is written back to YAML: one scalar in YAML syntax, or a
/// block mapping. Built by ``GatewayConfig/renderedSections(redactingSecrets:)``.
enum RenderedNode: Equatable {
    /// A value already in YAML syntax (`10s`, `"text"`, `[429, 502]`).
    case plain(String)
    /// A block mapping, keys in order.
    case mapping([Entry])

    /// One key of a mapping.
    struct Entry: Equatable {
        let key: String
        let value: RenderedNode

        init(_ key: String, _ value: RenderedNode) {
            self.key = key
            self.value = value
        }

        init(_ key: String, _ entries: [Entry]) {
            self.init(key, .mapping(entries))
        }
    }

    /// A string, double-quoted, with `${` written as `$${` so that loading it again does not
    /// expand anything.
    static func string(_ text: String) -> RenderedNode {
        .plain(quoted(text))
    }

    /// A string, or `null` for nil.
    static func optional(_ text: String?) -> RenderedNode {
        text.map(string) ?? .plain("null")
    }

    /// A flow list of strings.
    static func strings(_ texts: [String]) -> RenderedNode {
        .plain("[" + texts.map(quoted).joined(separator: ", ") + "]")
    }

    /// A duration such as `10s`.
    static func duration(_ duration: Duration) -> RenderedNode {
        .plain(ConfigDuration.format(duration))
    }

    /// A size such as `64MiB`.
    static func size(_ bytes: Int) -> RenderedNode {
        .plain(ByteSize.format(bytes))
    }

    /// A ``ConfigValue`` object as a block mapping of flow values, each value redacted when asked.
    static func payload(_ value: ConfigValue, redactingValues: Bool) -> RenderedNode {
        guard case .object(let members) = value else { return .plain(flow(value)) }
        return .mapping(members.map { member in
            Entry(member.key, redactingValues ? .string(ConfigSecret.redacted) : .plain(flow(member.value)))
        })
    }

    /// A ``ConfigValue`` in YAML flow syntax (JSON-like).
    private static func flow(_ value: ConfigValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let value): String(value)
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .string(let value): quoted(value)
        case .array(let values): "[" + values.map(flow).joined(separator: ", ") + "]"
        case .object(let members): "{" + members.map { flowKey(quotedKey($0.key)) + ": " + flow($0.value) }.joined(separator: ", ") + "}"
        }
    }

    private static func quoted(_ text: String) -> String {
        ConfigError.quoted(text.replacing("${", with: "$${"))
    }

    /// A key, double-quoted as it is: keys are never expanded, so `${` stays.
    private static func quotedKey(_ text: String) -> String {
        ConfigError.quoted(text)
    }

    /// The longest key written as an implicit key (`key: value`): a YAML reader looks no further
    /// than 1024 characters past the start of a key for its `:`. A longer key (which a file can
    /// write as `? key`) is written explicitly.
    private static let longestImplicitKey = 1024

    /// A written key of a flow mapping, made explicit (`? key`) when it is too long to be implicit.
    private static func flowKey(_ key: String) -> String {
        key.utf8.count > longestImplicitKey ? "? " + key : key
    }

    // MARK: - Writing

    /// Appends `entries` as block YAML indented by `indent` spaces.
    static func write(_ entries: [Entry], indent: Int, into output: inout String) {
        let padding = String(repeating: " ", count: indent)
        for entry in entries {
            let isPlain = !entry.key.isEmpty && entry.key.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || "_-.".contains($0) }
            let key = isPlain ? entry.key : quotedKey(entry.key)
            // `? key` on a line of its own, then `: value`, for a key too long to be implicit.
            let head = key.utf8.count > longestImplicitKey ? "\(padding)? \(key)\n\(padding):" : "\(padding)\(key):"
            switch entry.value {
            case .plain(let text):
                output += "\(head) \(text)\n"
            case .mapping(let children) where children.isEmpty:
                output += "\(head) {}\n"
            case .mapping(let children):
                output += "\(head)\n"
                write(children, indent: indent + 2, into: &output)
            }
        }
    }

    /// Every scalar and empty mapping (as `{}`) in `entries` under its dotted key path, in order.
    static func flatten(_ entries: [Entry], prefix: String = "") -> [(path: String, text: String)] {
        entries.flatMap { entry -> [(path: String, text: String)] in
            let path = prefix.isEmpty ? entry.key : "\(prefix).\(entry.key)"
            switch entry.value {
            case .plain(let text): return [(path, text)]
            case .mapping(let children) where children.isEmpty: return [(path, "{}")]
            case .mapping(let children): return flatten(children, prefix: path)
            }
        }
    }
}
