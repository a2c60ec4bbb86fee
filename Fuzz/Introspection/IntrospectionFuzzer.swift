import FuzzerSupport
import GQLGateCore
import GQLGateExchanges
import GQLGatePipeline

/// Documents the learned schema is used on, analysed once.
private let documents = DocumentCache()
private let samples = [
    "{ hero { id name friends { id name } } reviews(episode: JEDI) { stars } }",
    "query Q($id: ID!) { node(id: $id) { ... on Book { title } ... on Review { stars } } }",
    "mutation { createReview(episode: JEDI, review: {stars: 5}) { stars commentary } }",
].map { try! documents.analyse($0) }

/// One input: any bytes as the upstream's answer to an introspection query.
/// Reading it gives a schema or a reason. A cache schema, used to add
/// `__typename` and `id` to documents, always gives documents that parse
/// again; the SDL printed from it builds a schema or says why, never traps,
/// and a schema it builds validates the documents.
private func fuzzIntrospection(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let body = Bytes(UnsafeRawBufferPointer(start: data, count: count))
    guard case .success(let answer) = SchemaIntrospection.read(GraphQLResponse(status: 200, headers: [:], body: body, source: .upstream))
    else { return 0 }
    if let sdl = IntrospectionSDL.sdl(fromIntrospection: answer), let built = try? LoadedSchema(sdl: sdl) {
        for document in samples { _ = built.verdict(on: document) }
    }
    guard let schema = EntitySchema(introspection: answer) else { return 0 }
    for document in samples {
        guard let typenamed = document.typenamed(schema: schema) else { continue }
        precondition((try? DocumentCache().analyse(typenamed.query)) != nil, "the schema made a document that does not parse")
    }
    return 0
}

/// Runs libFuzzer on `fuzzIntrospection`.
@main
enum IntrospectionFuzzer {
    static func main() {
        runFuzzer { fuzzIntrospection($0, $1) }
    }
}
