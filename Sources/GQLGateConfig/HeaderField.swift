/// One HTTP header: a name and a value, as configured.
public struct HeaderField: Sendable, Equatable {
    /// The header name, as written in the config file (`X-Api-Key`).
    public var name: String
    /// The header value, after `${VAR}` expansion.
    public var value: String

    /// Creates a header field.
    /// - Parameters:
    ///   - name: The header name.
    ///   - value: The header value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

extension YAMLValue {
    /// A mapping of header names to values, in file order.
    func headerFields() throws(ConfigError) -> [HeaderField] {
        var fields: [HeaderField] = []
        for (name, value) in try entries(expected: "a mapping of header names to values") {
            guard name.isHeaderName else {
                // The name is no secret: quoted as it is, though the key path is the value's.
                throw ConfigError(
                    keyPath: value.path,
                    message: "\(ConfigError.quoted(name)) is not valid: expected a header name (letters, digits and !#$%&'*+-.^_`|~)")
            }
            guard !fields.contains(where: { $0.name.lowercased() == name.lowercased() }) else {
                throw ConfigError(keyPath: value.path, message: "header \(name) is set twice (names are case-insensitive)")
            }
            guard !value.isNull else { throw ConfigError(keyPath: value.path, message: "no value: expected a header value") }
            let text = try value.string()
            guard !text.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                throw value.invalid("a header value without line breaks", value: text)
            }
            fields.append(HeaderField(name: name, value: text))
        }
        return fields
    }

    /// A list of header names, lowercased.
    func headerNames() throws(ConfigError) -> [String] {
        var names: [String] = []
        for element in try list(of: "header names") {
            let name = try element.string()
            guard name.isHeaderName else { throw element.invalid("a header name (letters, digits and !#$%&'*+-.^_`|~)", value: name) }
            names.append(name.lowercased())
        }
        return names
    }
}
