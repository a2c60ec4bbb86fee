import GQLGateCore
import GQLGatePipeline

/// `demand_control.expose`: an answer with `extensions.cost {estimated, actual, max}`.
enum CostExtension {
    /// `response` with its cost added to its `extensions`; as it was when its body is not a JSON object.
    static func adding(to response: GraphQLResponse, plan: CostPlan, estimated: Double, max: Double, variables: JSONValue?) -> GraphQLResponse {
        let parsed = response.body.withUnsafeBytes { try? JSONReader.read($0) }
        guard case .object(var members)? = parsed else { return response }
        let actual = plan.actual(data: members.first { $0.key == "data" }?.value, variables: variables)
        let cost = JSONValue.object([("estimated", JSONValue(cost: estimated)), ("actual", JSONValue(cost: actual)), ("max", JSONValue(cost: max))])
        if let index = members.firstIndex(where: { $0.key == "extensions" }), case .object(var extensions) = members[index].value {
            extensions.removeAll { $0.key == "cost" }
            extensions.append(("cost", cost))
            members[index].value = .object(extensions)
        } else {
            members.removeAll { $0.key == "extensions" }
            members.append(("extensions", .object([("cost", cost)])))
        }
        var answered = response
        answered.body = Bytes(JSONValue.object(members).serialized())
        return answered
    }
}
