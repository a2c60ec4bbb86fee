extension DemoAPI {
    /// The `reviewAdded` subscription the examples follow.
    static let reviewAddedSubscription =
        "subscription OnReview($episode: Episode) { reviewAdded(episode: $episode) { id episode stars commentary } }"

    /// Ready-to-paste curl command lines that exercise the demo schema through
    /// `endpoint` (the demo's own `/graphql`, or a gateway in front of it):
    /// the hero query, the reviews of JEDI, creating a review, and a GET query
    /// (with `Apollo-Require-Preflight`, which gqlgate's CSRF rule asks of a
    /// request without `Content-Type`).
    package static func sampleQueries(endpoint: String) -> [(title: String, curl: String)] {
        let url = shellQuoted(endpoint)
        return [
            ("Hero of the saga, with friends",
             #"\#(post(url)) '{"query":"{ hero { __typename id name appearsIn friends { name } ... on Droid { primaryFunction } } }"}'"#),
            ("Reviews of Return of the Jedi",
             #"\#(post(url)) '{"query":"query Reviews($episode: Episode!) { reviews(episode: $episode) { id stars commentary } }","variables":{"episode":"JEDI"}}'"#),
            ("Create a review (mutation)", createReview(url)),
            ("A query sent with GET",
             #"curl -sS --get \#(url) -H 'Apollo-Require-Preflight: true' --data-urlencode 'query={ character(id: "1000") { name ... on Human { homePlanet } } }'"#),
        ]
    }

    /// Ready-to-paste commands that follow the `reviewAdded` subscription for
    /// JEDI through `endpoint` (an `http://` URL; the WebSocket one is derived
    /// from it): as server-sent events with `curl -N`, over a WebSocket
    /// (graphql-transport-ws) with Python's `websockets`, and the `createReview`
    /// mutation that makes both print an event. The first two run until stopped.
    package static func subscriptionExamples(endpoint: String) -> [(title: String, command: String)] {
        let url = shellQuoted(endpoint)
        let request = #"{"query":"\#(reviewAddedSubscription)","variables":{"episode":"JEDI"}}"#
        let sse = "curl -N -sS -X POST \(url) -H 'Accept: text/event-stream' -H 'Content-Type: application/json' -d '\(request)'"
        let python = """
            python3 - <<'EOF'
            import json
            from websockets.sync.client import connect
            with connect(\(pythonQuoted(webSocketURL(endpoint))), subprotocols=["graphql-transport-ws"]) as ws:
                ws.send(json.dumps({"type": "connection_init"}))
                print(ws.recv())
                ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": \(request)}))
                for message in ws:
                    print(message)
            EOF
            """
        return [
            ("Follow new reviews of JEDI as server-sent events (runs until Ctrl-C)", sse),
            ("The same over a WebSocket, graphql-transport-ws (pip install websockets)", python),
            ("Then, in another terminal, create a review: each follower prints it", createReview(url)),
        ]
    }

    private static func post(_ url: String) -> String {
        "curl -sS -X POST \(url) -H 'Content-Type: application/json' -d"
    }

    private static func createReview(_ url: String) -> String {
        #"\#(post(url)) '{"query":"mutation CreateReview($episode: Episode!, $review: ReviewInput!) { createReview(episode: $episode, review: $review) { id episode stars commentary } }","variables":{"episode":"JEDI","review":{"stars":5,"commentary":"This is a great movie."}}}'"#
    }

    /// `endpoint` with `ws://` for `http://` and `wss://` for `https://`.
    private static func webSocketURL(_ endpoint: String) -> String {
        if endpoint.hasPrefix("https://") { return "wss://" + endpoint.dropFirst("https://".count) }
        if endpoint.hasPrefix("http://") { return "ws://" + endpoint.dropFirst("http://".count) }
        return endpoint
    }

    /// `text` as one POSIX shell word.
    private static func shellQuoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#) + "'"
    }

    /// `text` as a Python string literal.
    private static func pythonQuoted(_ text: String) -> String {
        var literal = "\""
        for character in text {
            if character == "\\" || character == "\"" { literal.append("\\") }
            literal.append(character)
        }
        return literal + "\""
    }
}
