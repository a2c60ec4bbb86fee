import GQLGateCore

/// One entry of an `Accept` header: a media type with its parameters
/// (values unquoted), read leniently.
struct MediaRange {
    let type: String
    let parameters: [(name: String, value: String)]

    /// The entries of an `Accept` header value.
    static func list(_ header: String) -> [MediaRange] {
        header.split(separator: ",").map { entry in
            let pieces = entry.split(separator: ";")
            let type = pieces.first.map { String($0.trimmingASCIISpaces()) } ?? ""
            let parameters = pieces.dropFirst().compactMap { piece -> (name: String, value: String)? in
                let pair = piece.split(separator: "=", maxSplits: 1)
                guard pair.count == 2 else { return nil }
                let value = pair[1].trimmingASCIISpaces().filter { $0 != "\"" }
                return (String(pair[0].trimmingASCIISpaces()), String(value))
            }
            return MediaRange(type: type, parameters: parameters)
        }
    }
}
