import FuzzerSupport
import GQLGateCore
import GQLGateExchanges
import GQLGatePipeline

/// One input: any bytes as an upstream answer to a rewritten query.
/// Inspection either declines it (not a JSON object) or hands back a body
/// that is still a JSON object: the upstream's bytes with only the gateway's
/// aliases cut out of `data`.
private func fuzzAnswerInspection(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: count)
    let body = Bytes(input)
    for (alias, idAlias) in [("_gqlgate_typename", "_gqlgate_id"), ("_gqlgate_typename", nil)] as [(String, String?)] {
        guard let inspection = AnswerInspection(body: body, alias: alias, idAlias: idAlias) else { continue }
        let stripped = inspection.body.withUnsafeBytes { try? JSONReader.read($0) }
        guard let stripped, stripped.isObject else { preconditionFailure("inspection made a body that is not a JSON object") }
        precondition(inspection.body.count <= body.count, "stripping made the answer longer")
        // GraphQL's `data` is an object (or null); the aliases are cut out of an object's selections only.
        guard stripped["data"]?.isObject == true else { continue }
        precondition(!holdsKey(alias, stripped["data"]) && !holdsKey(idAlias, stripped["data"]),
                     "an added alias was left in the answer's data")
    }
    return 0
}

/// Whether `value` holds an object member named `key` at any depth.
private func holdsKey(_ key: String?, _ value: JSONValue?) -> Bool {
    guard let key, let value else { return false }
    switch value {
    case .object(let members): return members.contains { $0.key == key || holdsKey(key, $0.value) }
    case .array(let items): return items.contains { holdsKey(key, $0) }
    default: return false
    }
}

/// Runs libFuzzer on `fuzzAnswerInspection`.
@main
enum AnswerInspectionFuzzer {
    static func main() {
        runFuzzer { fuzzAnswerInspection($0, $1) }
    }
}
