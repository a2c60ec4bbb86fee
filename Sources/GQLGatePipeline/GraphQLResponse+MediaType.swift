import GQLGateCore

extension GraphQLResponse {
    /// The answer as a client that negotiated `mediaType` gets it. An answer
    /// in the other GraphQL media type (by its `Content-Type`) keeps its
    /// body bytes and gets `mediaType`'s `Content-Type` and the status that
    /// type prescribes:
    ///
    /// - into `application/graphql-response+json`: no `data` entry and a
    ///   status below 400 becomes 400; a non-null `data` entry and a status
    ///   outside 2xx becomes 200; the body is read only that far, and an
    ///   `application/json` body that is no GraphQL response (no JSON object
    ///   with `data` or `errors`) is passed on as it is, since this type
    ///   would vouch for it;
    /// - into `application/json`: 294 (partial success), 400 and 422 (GraphQL
    ///   request errors) become 200; every other status stays (401, 413,
    ///   429, 5xx… are no GraphQL errors).
    ///
    /// An answer already in `mediaType`, or in neither type (a stream, an
    /// HTML error page), is returned unchanged.
    package func delivered(as mediaType: ResponseMediaType) -> GraphQLResponse {
        guard let own = ResponseMediaType(contentType: headers["content-type"]), own != mediaType else { return self }
        var delivered = self
        switch mediaType {
        case .graphQLResponse:
            guard let data = DataEntry(of: body) else { return self }
            switch data {
            case .absent where status < 400: delivered.status = 400
            case .present where !(200..<300).contains(status): delivered.status = 200
            default: break
            }
        case .json:
            if status == 294 || status == 400 || status == 422 { delivered.status = 200 }
        }
        delivered.headers.replaceOrAdd(name: "Content-Type", value: mediaType.contentType)
        return delivered
    }
}

/// The `data` entry of a GraphQL response body.
private enum DataEntry {
    case absent
    case null
    case present

    /// The entry of `body`; nil when `body` is no JSON object with `data` or `errors`.
    init?(of body: Bytes) {
        let entry: DataEntry? = body.withUnsafeBytes { bytes in
            do {
                let data = try JSONReader.firstMember(named: "data", in: bytes) { reader throws(JSONReader.Failure) -> DataEntry in
                    guard try reader.opening() == .scalar else { return .present }
                    return try reader.value() == .null ? .null : .present
                }
                if let data { return data }
                let errors: Void? = try JSONReader.firstMember(named: "errors", in: bytes) { reader throws(JSONReader.Failure) in
                    try reader.skipValue()
                }
                return errors == nil ? nil : .absent
            } catch {
                return nil
            }
        }
        guard let entry else { return nil }
        self = entry
    }
}
