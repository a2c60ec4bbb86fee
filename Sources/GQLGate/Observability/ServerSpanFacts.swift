import GQLGateCore
import GQLGatePipeline
import GQLGateTracing

/// What a server span takes from the facts its operation's record kept,
/// the same for a request over HTTP (`GatewayRecorder.watch`) and an
/// operation on a client WebSocket (`GatewayRecorder.webSocketOperationBegins`).
extension OperationRecord.Snapshot {
    /// The operation, the document, the cache, the persisted id, the attempts and a refusal, those that were noted.
    func addSpanAttributes(to attributes: inout [SpanAttribute]) {
        if let kind { attributes.append(SpanAttribute("graphql.operation.type", kind.rawValue)) }
        if let operationName { attributes.append(SpanAttribute("graphql.operation.name", operationName)) }
        if let documentSHA256 { attributes.append(SpanAttribute("graphql.document.sha256", documentSHA256)) }
        if let cache { attributes.append(SpanAttribute("gqlgate.cache.status", cache.rawValue)) }
        if let persistedID { attributes.append(SpanAttribute("gqlgate.persisted_document.id", persistedID)) }
        if attempts > 0 { attributes.append(SpanAttribute("gqlgate.upstream.attempts", attempts)) }
        if let shed { attributes.append(SpanAttribute("gqlgate.shed", shed.rawValue)) }
        if let cost { attributes.append(SpanAttribute("gqlgate.operation.cost", .double(cost))) }
    }

    /// The upstream WebSocket's reconnects, as events `upstream.reconnect`.
    func reconnectEvents(_ tracer: Tracer) -> [SpanRecord.Event] {
        reconnects.map { reconnect in
            var attributes = [
                SpanAttribute("gqlgate.upstream.reconnect.attempt", reconnect.attempt),
                SpanAttribute("gqlgate.upstream.reconnect.reason", reconnect.reason.rawValue),
            ]
            if let code = reconnect.closeCode { attributes.append(SpanAttribute("gqlgate.upstream.close_code", code)) }
            return SpanRecord.Event(name: "upstream.reconnect", timeUnixNano: tracer.unixNano(ofMonotonic: reconnect.at), attributes: attributes)
        }
    }
}

extension Tracer {
    /// Exports the waits noted (`upstream queue wait`, `upstream token`) as internal spans under `parent`.
    func finishWaits(of facts: OperationRecord.Snapshot, under parent: SpanContext) {
        for wait in facts.waits {
            finished(SpanRecord(
                context: child(of: parent), parentSpanID: parent.spanID, name: wait.kind.rawValue, kind: .internal,
                startUnixNano: unixNano(ofMonotonic: wait.start), endUnixNano: unixNano(ofMonotonic: wait.end)))
        }
    }
}
