import GQLGatePipeline
import GraphQL

/// Something worked out for each operation of a document, under one
/// version of what it was worked out from (`key`: a schema's generation, a
/// cost schema's identity), kept with the document in a `DocumentMemo` slot.
final class PerOperation<Value: Sendable>: Sendable {
    /// What it was worked out under; another key means it is stale.
    let key: Int
    /// By the operation's place in the document.
    let values: [Value]

    init(key: Int, values: [Value]) {
        self.key = key
        self.values = values
    }

    /// The value of `selected`, one of `document`'s operations.
    func value(of selected: DocumentOperation, in document: AnalysedDocument) -> Value? {
        guard let index = document.index(of: selected), index < values.count else { return nil }
        return values[index]
    }
}

extension AnalysedDocument {
    /// The values in `memo`'s slot when they were worked out under `key`; never works them out.
    func known<Memo: DocumentMemo, Value>(_ memo: Memo.Type, key: Int) -> PerOperation<Value>? where Memo.Value == PerOperation<Value> {
        self.memo(memo) { $0.key == key }
    }

    /// The values in `memo`'s slot, worked out with `derive` for each operation the first time under `key`.
    func perOperation<Memo: DocumentMemo, Value>(_ memo: Memo.Type, key: Int, derive: (OperationDefinition) -> Value)
        -> PerOperation<Value> where Memo.Value == PerOperation<Value> {
        memoized(memo, isCurrent: { $0.key == key }) {
            PerOperation(key: key, values: document.definitions.compactMap { $0 as? OperationDefinition }.map(derive))
        }
    }
}
