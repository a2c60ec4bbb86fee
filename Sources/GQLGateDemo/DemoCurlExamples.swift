extension DemoAPI {
    /// Ready-to-paste curl command lines that exercise the demo schema through
    /// `endpoint` (the demo's own `/graphql`, or a gateway in front of it):
    /// the hero query, the reviews of JEDI, creating a review, and a GET query.
    public static func sampleQueries(endpoint: String) -> [(title: String, curl: String)] {
        let url = shellQuoted(endpoint)
        let post = "curl -sS -X POST \(url) -H 'Content-Type: application/json' -d"
        return [
            ("Hero of the saga, with friends",
             #"\#(post) '{"query":"{ hero { __typename id name appearsIn friends { name } ... on Droid { primaryFunction } } }"}'"#),
            ("Reviews of Return of the Jedi",
             #"\#(post) '{"query":"query Reviews($episode: Episode!) { reviews(episode: $episode) { stars commentary } }","variables":{"episode":"JEDI"}}'"#),
            ("Create a review (mutation)",
             #"\#(post) '{"query":"mutation CreateReview($episode: Episode!, $review: ReviewInput!) { createReview(episode: $episode, review: $review) { episode stars commentary } }","variables":{"episode":"JEDI","review":{"stars":5,"commentary":"This is a great movie."}}}'"#),
            ("A query sent with GET",
             #"curl -sS --get \#(url) --data-urlencode 'query={ character(id: "1000") { name ... on Human { homePlanet } } }'"#),
        ]
    }

    /// `text` as one POSIX shell word.
    private static func shellQuoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#) + "'"
    }
}
