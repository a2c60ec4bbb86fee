import FuzzerSupport
import GQLGateCore
import GQLGatePipeline

/// One input: any bytes as a POST body and as GET parameters. The
/// decoder answers a request or a client error (4xx), never anything else,
/// and a body it accepts is a JSON object to JSONReader too.
private func fuzzRequestDecoder(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: count)
    let body = Bytes(input)
    do {
        _ = try GraphQLHTTPDecoder.decode(method: "POST", contentType: "application/json", queryItems: [], body: body)
        guard (try? JSONReader.read(input))?.isObject == true else { preconditionFailure("a body that is not a JSON object was accepted") }
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

/// Runs libFuzzer on `fuzzRequestDecoder`.
@main
enum RequestDecoderFuzzer {
    static func main() {
        runFuzzer { fuzzRequestDecoder($0, $1) }
    }
}
