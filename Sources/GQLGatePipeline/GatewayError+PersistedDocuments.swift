/// The answers of the persisted documents and the operation safelist.
extension GatewayError {
    /// 404: the id a client sent is in none of `persisted_documents.manifests`.
    public static func persistedQueryNotInList(_ id: String) -> GatewayError {
        GatewayError(status: 404, code: "PERSISTED_QUERY_NOT_IN_LIST",
                     message: "No persisted document has the id \"\(id)\".")
    }

    /// 400: a document sent as text while `persisted_documents.require_id` is on.
    public static let persistedQueryIDRequired = GatewayError(
        status: 400, code: "PERSISTED_QUERY_ID_REQUIRED",
        message: "Send the id of a persisted document (documentId, extensions.persistedQuery, doc_id or id), not its text.")

    /// 403: a document sent as text that is not in the safelist.
    public static let queryNotInSafelist = GatewayError(
        status: 403, code: "QUERY_NOT_IN_SAFELIST", message: "This operation is not in the safelist.")

    /// 403: `__schema` or `__type` selected while `limits.introspection` is false.
    public static let introspectionDisabled = GatewayError(
        status: 403, code: "INTROSPECTION_DISABLED", message: "Introspection (__schema, __type) is disabled.")
}
