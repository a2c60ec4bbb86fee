@_spi(GQLGateInternals) import GQLGateCore
package import GraphQL

/// One operation defined in a document.
package struct DocumentOperation: Sendable, Equatable {
    /// The operation's name; nil for an anonymous operation.
    package let name: String?
    package let kind: OperationKind
    /// Its depth and alias count with fragments expanded.
    package let shape: OperationShape
}

/// A parsed document and what the gateway needs to know about it, computed
/// once per distinct query text (see `DocumentCache`).
///
/// `@unchecked Sendable`: GraphQLSwift's AST is not marked `Sendable`, but the
/// gateway never edits a tree once parsed (no `set(value:key:)` on a cached
/// document; rewrites build new trees), so it is read-only and can be read
/// from any thread.
package final class AnalysedDocument: @unchecked Sendable {
    /// The parsed document.
    package let document: Document
    /// The operations it defines, in order.
    package let operations: [DocumentOperation]
    /// The query text it was parsed from.
    package let queryText: String
    /// Hex SHA-256 of the query text (the APQ hash).
    package let sha256: String
    /// Forms derived on first use: the digests, and what other modules keep
    /// with the document (`memoized(_:isCurrent:derive:)`).
    private let derived = Lock<DerivedForms>(DerivedForms())

    private struct DerivedForms {
        var canonicalDigest: (bytes: [UInt8], hex: String)?
        var definitionSetDigest: DocumentDigest?
        /// By the `DocumentMemo` type whose slot each is, each in a `MemoBox` of its `Value`.
        var memos: [ObjectIdentifier: any AnyObject & Sendable] = [:]
    }

    /// Analyses `document`; throws `QUERY_TOO_COMPLEX` when its fragments spread each other in a cycle.
    init(document: Document, query: String, sha256: String) throws(GatewayError) {
        self.document = document
        queryText = query
        self.sha256 = sha256
        var measurer = OperationShapeMeasurer(document: document)
        var operations: [DocumentOperation] = []
        for case let operation as OperationDefinition in document.definitions {
            operations.append(DocumentOperation(
                name: operation.name?.value, kind: OperationKind(operation.operation),
                shape: try measurer.shape(of: operation.selectionSet)))
        }
        self.operations = operations
    }

    /// Whether this is the analysis of `query`: the same UTF-8 bytes as the
    /// text it was parsed from (at once when it is the same string).
    package func isAnalysis(of query: String) -> Bool {
        QueryText(queryText) == QueryText(query)
    }

    /// SHA-256 of the document's canonical text (`CanonicalDocument`): the
    /// same for texts that differ only in spacing, commas or comments (cache
    /// keys). Worked out once, linear in the text's length.
    package var canonicalDigest: [UInt8] { canonicalForms.bytes }

    /// `canonicalDigest` in hex.
    package var normalisedDigest: String { canonicalForms.hex }

    private var canonicalForms: (bytes: [UInt8], hex: String) {
        if let known = derived.withLock({ $0.canonicalDigest }) { return known }
        let digest = CanonicalDocument.digest(of: queryText)
        let forms = (bytes: Array(digest), hex: digest.hexString)
        derived.withLock { $0.canonicalDigest = forms }
        return forms
    }

    /// SHA-256 of the definition-set form (`CanonicalDocument`): the
    /// same for texts that differ only in spacing, commas, comments or the
    /// order of their definitions (the operation safelist). Worked out once.
    package var definitionSetDigest: DocumentDigest {
        if let known = derived.withLock({ $0.definitionSetDigest }) { return known }
        let digest = DocumentDigest(key: DigestKey(CanonicalDocument.definitionSetDigest(of: queryText)))
        derived.withLock { $0.definitionSetDigest = digest }
        return digest
    }

    /// The value in `memo`'s slot when there is one and `isCurrent` accepts
    /// it; else `derive()`, kept in the slot for the next call. The pipeline
    /// never reads or sets a slot itself: it is where a stage keeps what it
    /// works out from a document (the response cache's rewritten texts), so
    /// that each distinct document, held by `DocumentCache`, is worked on once.
    /// Two calls that both find no value may both derive; the later is kept.
    package func memoized<Memo: DocumentMemo>(_ memo: Memo.Type, isCurrent: (Memo.Value) -> Bool = { _ in true },
                                            derive: () -> Memo.Value) -> Memo.Value {
        if let known = self.memo(memo, isCurrent: isCurrent) { return known }
        let value = derive()
        derived.withLock { $0.memos[ObjectIdentifier(memo)] = MemoBox(value) }
        return value
    }

    /// The value in `memo`'s slot when there is one and `isCurrent` accepts
    /// it; never derives (a stage that must not work on the server thread
    /// looks first, and derives on a loop).
    package func memo<Memo: DocumentMemo>(_ memo: Memo.Type, isCurrent: (Memo.Value) -> Bool = { _ in true }) -> Memo.Value? {
        guard let kept = derived.withLock({ $0.memos[ObjectIdentifier(memo)] }) else { return nil }
        // A slot is only ever set with its own type's box: no dynamic cast needed.
        let known = unsafeDowncast(kept as AnyObject, to: MemoBox<Memo.Value>.self).value
        return isCurrent(known) ? known : nil
    }

    /// The document parsed again with locations, for errors that name the
    /// client's line and column (the one held has none, to save memory and
    /// time), with the input that maps the parser's offsets to the client's
    /// text. Nil when it cannot be parsed so, which a held text always can.
    package func locatedDocument() -> (document: Document, input: ParserInput)? {
        let input = ParserInput(queryText)
        return (try? parse(source: input.text)).map { ($0, input) }
    }

    /// Where `selected`, one of its operations, is among them (at once for a document of one operation).
    package func index(of selected: DocumentOperation) -> Int? {
        operations.count == 1 ? 0 : operations.firstIndex(of: selected)
    }

    /// Chooses the operation to run, as GraphQL's GetOperation does.
    package func selectOperation(named name: String?) throws(GatewayError) -> DocumentOperation {
        if let name {
            guard let found = operations.first(where: { $0.name == name }) else {
                throw .operationNotDetermined("Unknown operation named \"\(name)\".")
            }
            return found
        }
        switch operations.count {
        case 1: return operations[0]
        case 0: throw .operationNotDetermined("The document has no operation to run.")
        default: throw .operationNotDetermined("The document has several operations: operationName must say which to run.")
        }
    }
}

/// A memo's value, boxed so that a slot is read without a dynamic cast.
private final class MemoBox<Value: Sendable>: Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}

/// A slot for a value kept with every `AnalysedDocument`
/// (`AnalysedDocument.memoized(_:isCurrent:derive:)`): one per conforming type.
package protocol DocumentMemo {
    associatedtype Value: Sendable
}

extension OperationKind {
    package init(_ type: OperationType) {
        switch type {
        case .query: self = .query
        case .mutation: self = .mutation
        case .subscription: self = .subscription
        }
    }
}
