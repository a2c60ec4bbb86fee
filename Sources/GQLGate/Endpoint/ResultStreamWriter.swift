import GQLGateCore
import GQLGateEventLoop
import GQLGatePipeline
import GQLGateSubscriptions

/// Writes an operation's results to a streamed answer as they come, with
/// keep-alives in between, and ends the body:
/// - the results finish: the format's end (SSE `complete`, the multipart
///   close delimiter);
/// - they fail with GraphQL errors (`GraphQLErrorsFailure`): one result
///   `{"errors": [...]}`, then the end;
/// - they fail otherwise (`GatewayError`, an upstream body that is not a
///   GraphQL response): the format's transport error, then the end;
/// - the task is cancelled (client gone, drain): the end, for whoever still reads.
///
/// A write the sink refuses (client gone or too slow) cancels the writer,
/// which ends the results and so the upstream side.
struct ResultStreamWriter: Sendable {
    let format: HTTPStreamFormat
    let sink: any StreamSink

    /// Writes everything, then finishes the sink.
    func run(_ results: ResultStream) async {
        _ = sink.write(format.opening)
        await withTaskGroup(of: Void.self) { group in
            if let interval = format.keepAliveInterval {
                group.addTask { await keepAlive(every: interval) }
            }
            _ = sink.write(await deliver(results) + format.end)
            group.cancelAll()
        }
        sink.finish()
    }

    /// Writes each result; returns what goes before the end.
    private func deliver(_ results: ResultStream) async -> String {
        do {
            for try await result in results {
                if !sink.write(try encoded(result)) {
                    // The client is gone: cancelling makes the next step end the results, and with them the upstream side.
                    withUnsafeCurrentTask { $0?.cancel() }
                }
            }
            return ""
        } catch let failure as GraphQLErrorsFailure {
            return format.result(SerializedJSON(.object([("errors", .array(failure.errors))])))
        } catch is CancellationError {
            return ""
        } catch let error as any GatewayErrorConvertible {
            return format.transportError(error.gatewayError.graphQLErrors)
        } catch {
            return format.transportError([GatewayError.internalError("The gateway failed: \(error)").graphQLError])
        }
    }

    /// One result as the format writes it; a body that is no JSON object
    /// (an HTML error page from a proxy, say) fails the stream.
    private func encoded(_ result: GraphQLResponse) throws(GatewayError) -> String {
        guard Self.looksLikeJSONObject(result.body) else {
            throw GatewayError.upstreamUnavailable("The upstream answered \(result.status) without a GraphQL response.")
        }
        return format.result(SerializedJSON(trusted: result.body.string))
    }

    private func keepAlive(every interval: Duration) async {
        while (try? await EventLoop.sleep(for: interval)) != nil {
            guard sink.write(format.keepAlive) else { return }
        }
    }

    /// Whether `bytes`, spaces aside, start with `{` and end with `}`: a
    /// cheap check, not a parse (results pass through as the upstream wrote them).
    static func looksLikeJSONObject(_ bytes: Bytes) -> Bool {
        bytes.withUnsafeBytes { raw in
            let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
            guard let first = raw.firstIndex(where: { !isSpace($0) }), let last = raw.lastIndex(where: { !isSpace($0) }) else {
                return false
            }
            return raw[first] == UInt8(ascii: "{") && raw[last] == UInt8(ascii: "}")
        }
    }
}
