extension GatewayError {
    /// 400 `COST_ESTIMATED_TOO_EXPENSIVE`: the operation's estimated cost is
    /// over `demand_control.max_cost`; `extensions.cost` says both. A GraphQL
    /// request error (a rule of gqlgate's own, like its limits).
    package static func costEstimatedTooExpensive(estimated: Double, max: Double) -> GatewayError {
        let code = "COST_ESTIMATED_TOO_EXPENSIVE"
        let message = "The operation's estimated cost, \(JSONValue(cost: estimated).serialized()), "
            + "is over the maximum of \(JSONValue(cost: max).serialized())."
        var error = GatewayError(status: 400, code: code, message: message)
        error.isGraphQLRequestError = true
        error.details = [.object([
            ("message", .string(message)),
            ("extensions", .object([
                ("code", .string(code)),
                ("cost", .object([("estimated", JSONValue(cost: estimated)), ("max", JSONValue(cost: max))])),
            ])),
        ])]
        return error
    }
}

extension JSONValue {
    /// A cost as JSON: a whole number as an integer (`12`), else a decimal (`2.5`).
    package init(cost: Double) {
        self = cost.rounded() == cost && abs(cost) < 1e15 ? .integer(Int(cost)) : JSONValue(cost)
    }
}
