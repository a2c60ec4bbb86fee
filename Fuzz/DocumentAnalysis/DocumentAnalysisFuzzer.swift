import FuzzerSupport
import GQLGateExchanges
import GQLGatePipeline
import GraphQL

/// Documents are analysed through one cache, as the gateway does; a small
/// capacity keeps the fuzzer's memory flat.
private let documents = DocumentCache(capacity: 64)

/// A schema with an identified type, so the `id` rewrite runs too.
private let schema = EntitySchema(
    rootTypes: [.query: "Query", .mutation: "Mutation", .subscription: "Subscription"],
    fieldTypes: ["Query": ["hero": "Character", "a": "Character"], "Character": ["friends": "Character"]],
    identifiedTypes: ["Character"], possibleTypes: [:])

/// One input: any text as a query. Analysis either refuses it with a
/// client error or yields a document whose canonical digest and rewritten
/// forms can be computed, and whose rewritten texts parse again.
private func fuzzDocumentAnalysis(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
    let analysed: AnalysedDocument
    do {
        analysed = try documents.analyse(text)
    } catch {
        precondition(error.status == 400, "analysis failed with status \(error.status)")
        return 0
    }
    _ = try? analysed.selectOperation(named: nil)
    for operation in analysed.operations { _ = try? analysed.selectOperation(named: operation.name) }
    precondition(analysed.normalisedDigest.utf8.count == 64, "the canonical digest is not a SHA-256")
    for case let rewritten? in [analysed.typenamed, analysed.typenamed(schema: schema)] {
        do {
            _ = try parse(source: rewritten.query, noLocation: true)
        } catch {
            preconditionFailure("a rewritten document does not parse: \(error)\n\(rewritten.query)")
        }
    }
    return 0
}

/// Runs libFuzzer on `fuzzDocumentAnalysis`.
@main
enum DocumentAnalysisFuzzer {
    static func main() {
        runFuzzer { fuzzDocumentAnalysis($0, $1) }
    }
}
