import GQLGateCore
import GQLGatePipeline

/// libFuzzer entry: any bytes as a POST body and as GET parameters. The
/// decoder answers a request or a client error (4xx), never anything else,
/// and a body it accepts is one JSONReader reads too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestDecoder(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: count)
    let body = Bytes(input)
    do {
        let (request, _) = try GraphQLHTTPDecoder.decode(method: "POST", contentType: "application/json", queryItems: [], body: body)
        precondition(request.query != nil || request.extensions != nil, "a request without query or extensions was accepted")
        _ = try? JSONReader.read(input)
    } catch {
        precondition((400..<500).contains(error.status), "decoding failed with status \(error.status)")
    }
    // The same bytes as GET parameters, split at NUL bytes: query, operationName, variables, extensions.
    let parts = input.split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    let names = ["query", "operationName", "variables", "extensions"]
    let items = zip(names, parts).map { (name: $0, value: Optional($1)) }
    do {
        _ = try GraphQLHTTPDecoder.decode(method: "GET", contentType: nil, queryItems: items, body: .empty)
    } catch {
        precondition((400..<500).contains(error.status), "decoding failed with status \(error.status)")
    }
    return 0
}
