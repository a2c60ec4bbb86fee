import GraphQL

/// How deeply a request to the demo API may nest, checked before GraphQLSwift
/// sees it: its parser, validation and value coercion recurse once per level
/// of `{}`, `[]` and `()` in the document (a variable type 20,000 lists deep
/// overflowed the stack), once per level of the variables, and validation and
/// execution once per fragment in a chain of fragments spreading each other.
enum DemoNesting {
    /// Levels allowed in the document and in the variables, and fragments in
    /// a document; far above what the demo schema can use (introspection
    /// queries nest about 20 deep).
    static let limit = 64

    /// Why `request` nests too deeply, or nil when it does not.
    static func problem(in request: GraphQLRequest) -> GraphQLError? {
        if nests(request.query, deeperThan: limit) {
            return GraphQLError(message: "The document nests deeper than \(limit) levels of braces, brackets and parentheses.")
        }
        if request.variables.values.contains(where: { nests($0, deeperThan: limit - 1) }) {
            return GraphQLError(message: "The variables nest deeper than \(limit) levels of objects and lists.")
        }
        return nil
    }

    /// Why the parsed `document` could nest too deeply through fragments, or nil.
    static func problem(in document: Document) -> GraphQLError? {
        let fragments = document.definitions.lazy.filter { $0 is FragmentDefinition }.count
        return fragments > limit ? GraphQLError(message: "The document defines \(fragments) fragments; at most \(limit) are allowed.") : nil
    }

    /// Whether a GraphQL document nests `{`, `[` and `(` more than `levels`
    /// deep, outside strings, block strings and comments: one pass over the
    /// bytes, stopping at the first level too many.
    static func nests(_ document: String, deeperThan levels: Int) -> Bool {
        var depth = 0
        var bytes = document.utf8[...]
        while let byte = bytes.popFirst() {
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "("):
                depth += 1
                if depth > levels { return true }
            case UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ")"):
                depth = max(0, depth - 1)
            case UInt8(ascii: "#"):
                bytes = bytes.drop { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
            case UInt8(ascii: "\""):
                skipString(&bytes)
            default:
                break
            }
        }
        return false
    }

    /// Skips the rest of a string whose opening `"` was just read: a block
    /// string (`"""…"""`, where `\"""` is no end) or a one-line string
    /// (where `\` escapes the next character).
    private static func skipString(_ bytes: inout Substring.UTF8View) {
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        if bytes.starts(with: [quote, quote]) {
            bytes = bytes.dropFirst(2)
            while !bytes.isEmpty, !bytes.starts(with: [quote, quote, quote]) {
                bytes = bytes.starts(with: [backslash, quote, quote, quote]) ? bytes.dropFirst(4) : bytes.dropFirst()
            }
            bytes = bytes.dropFirst(3)
            return
        }
        while let byte = bytes.popFirst(), byte != quote, byte != UInt8(ascii: "\n") {
            if byte == backslash { _ = bytes.popFirst() }
        }
    }

    /// Whether `value` nests objects and lists more than `levels` deep (the
    /// variables object itself is a level, its values' objects the next); the
    /// recursion goes no deeper than `levels` + 1.
    static func nests(_ value: Map, deeperThan levels: Int) -> Bool {
        switch value {
        case .array(let values): levels == 0 || values.contains { nests($0, deeperThan: levels - 1) }
        case .dictionary(let members): levels == 0 || members.values.contains { nests($0, deeperThan: levels - 1) }
        default: false
        }
    }
}
