/// GraphQL string literals for values the gateway prints itself.
package enum GraphQLStringLiteral {
    /// Appends `value` as a `"…"` literal: `"` and `\` escaped, line feeds
    /// and tabs as `\n` and `\t`, other control characters as `\uXXXX`.
    package static func append(_ value: String, to text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                let hex = String(scalar.value, radix: 16, uppercase: true)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
