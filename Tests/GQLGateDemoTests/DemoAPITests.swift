import Foundation
import GQLGateDemo
import Testing

/// Talks to a running `DemoAPI` with the curl command-line tool.
@Suite(.serialized) struct DemoAPITests {
    private struct Reply {
        let status: Int
        let contentType: String
        let body: String
    }

    /// Runs a shell command line and returns what it printed.
    private static func shell(_ commandLine: String) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", commandLine]
        let output = Pipe()
        process.standardOutput = output
        let printed: Data = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { _ in
                continuation.resume(returning: output.fileHandleForReading.readDataToEndOfFile())
            }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
            }
        }
        return String(decoding: printed, as: UTF8.self)
    }

    /// Runs curl with `arguments` (already shell-quoted) and splits off the status line.
    /// `--max-time` only stops a hang: a sanitizer run of every suite at once has
    /// kept the demo's first answer waiting over 10 s for a thread of the shared pool.
    private static func curl(_ arguments: String) async throws -> Reply {
        let printed = try await shell("curl -sS --max-time 60 -w '\\n%{http_code} %{content_type}' \(arguments)")
        let lines = printed.split(separator: "\n", omittingEmptySubsequences: false)
        let trailer = lines.last?.split(separator: " ", maxSplits: 1) ?? []
        return Reply(
            status: trailer.first.flatMap { Int($0) } ?? 0,
            contentType: trailer.count > 1 ? String(trailer[1]) : "",
            body: lines.dropLast().joined(separator: "\n"))
    }

    private static func withRunningDemo(_ body: (DemoAPI) async throws -> Void) async throws {
        let demo = DemoAPI(host: "127.0.0.1", port: 0)
        try demo.start()
        defer { demo.stop() }
        #expect(demo.port != 0)
        try await body(demo)
    }

    @Test func servesGraphQLOverPOSTAndGET() async throws {
        try await Self.withRunningDemo { demo in
            let url = "'\(demo.endpoint)'"
            let post = try await Self.curl(
                #"-X POST \#(url) -H 'Content-Type: application/json' -d '{"query":"query H($e: Episode) { hero(episode: $e) { name } }","variables":{"e":"EMPIRE"}}'"#)
            #expect(post.status == 200)
            #expect(post.contentType == "application/json")
            #expect(post.body == #"{"data":{"hero":{"name":"Luke Skywalker"}}}"#)

            let get = try await Self.curl(#"--get \#(url) --data-urlencode 'query={ character(id: "2000") { name } }'"#)
            #expect(get.status == 200)
            #expect(get.body == #"{"data":{"character":{"name":"C-3PO"}}}"#)

            let health = try await Self.curl("'http://127.0.0.1:\(demo.port)/healthz'")
            #expect(health.status == 200)
        }
    }

    @Test func reportsBadRequests() async throws {
        try await Self.withRunningDemo { demo in
            let url = "'\(demo.endpoint)'"
            let json = "-X POST \(url) -H 'Content-Type: application/json' -d"

            let syntax = try await Self.curl(#"\#(json) '{"query":"{ hero { name }"}'"#)
            #expect(syntax.status == 400)
            #expect(syntax.contentType == "application/json")
            #expect(syntax.body.hasPrefix(#"{"errors":[{"#))

            let invalid = try await Self.curl(#"\#(json) '{"query":"{ hero { height } }"}'"#)
            #expect(invalid.status == 400)
            #expect(invalid.body.contains("height"))

            let notJSON = try await Self.curl("\(json) 'query=1'")
            #expect(notJSON.status == 400)

            let plainText = try await Self.curl(#"-X POST \#(url) -H 'Content-Type: text/plain' -d '{"query":"{ hero { name } }"}'"#)
            #expect(plainText.status == 415)

            let fieldError = try await Self.curl(#"\#(json) '{"query":"mutation { createReview(episode: JEDI, review: { stars: 9 }) { stars } }"}'"#)
            #expect(fieldError.status == 200)
            #expect(fieldError.body.contains("stars must be between 0 and 5"))

            let mutationOverGET = try await Self.curl(
                "--get \(url) --data-urlencode 'query=mutation { createReview(episode: JEDI, review: { stars: 1 }) { stars } }'")
            #expect(mutationOverGET.status == 405)
            #expect(demo.reviews.reviews(of: .jedi).isEmpty)

            let missingQuery = try await Self.curl("\(url)")
            #expect(missingQuery.status == 400)

            let elsewhere = try await Self.curl("'http://127.0.0.1:\(demo.port)/nowhere'")
            #expect(elsewhere.status == 404)

            let wrongMethod = try await Self.curl("-X DELETE \(url)")
            #expect(wrongMethod.status == 405)
        }
    }

    @Test func sampleCommandsWork() async throws {
        try await Self.withRunningDemo { demo in
            let samples = DemoAPI.sampleQueries(endpoint: demo.endpoint)
            #expect(samples.count == 4)
            for sample in samples {
                let printed = try await Self.shell(sample.curl)
                #expect(printed.hasPrefix(#"{"data":{"#), "\(sample.title): \(printed)")
                #expect(!printed.contains("errors"), "\(sample.title): \(printed)")
            }
            #expect(demo.reviews.reviews(of: .jedi) == [Review(id: "1", episode: .jedi, stars: 5, commentary: "This is a great movie.")])
        }
    }

    @Test func subscriptionExamplesFollowReviewAddedAndTheMutationTriggersIt() async throws {
        let examples = DemoAPI.subscriptionExamples(endpoint: "http://127.0.0.1:8080/graphql")
        #expect(examples.count == 3)
        #expect(examples[0].command.hasPrefix(
            "curl -N -sS -X POST 'http://127.0.0.1:8080/graphql' -H 'Accept: text/event-stream' -H 'Content-Type: application/json' -d '{"))
        #expect(examples[1].command.hasPrefix("python3 - <<'EOF'\n"))
        #expect(examples[1].command.hasSuffix("\nEOF"))
        #expect(examples[1].command.contains(#"connect("ws://127.0.0.1:8080/graphql", subprotocols=["graphql-transport-ws"])"#))
        for example in examples.prefix(2) {
            #expect(example.command.contains("reviewAdded(episode: $episode)"))
            #expect(example.command.contains(#""variables":{"episode":"JEDI"}"#))
        }
        #expect(DemoAPI.subscriptionExamples(endpoint: "https://api.example/graphql")[1].command.contains(#"connect("wss://api.example/graphql""#))

        try await Self.withRunningDemo { demo in
            let trigger = DemoAPI.subscriptionExamples(endpoint: demo.endpoint)[2].command
            let printed = try await Self.shell(trigger)
            #expect(printed.hasPrefix(#"{"data":{"createReview":{"id":"1","episode":"JEDI""#), "\(printed)")
            #expect(demo.reviews.reviews(of: .jedi).count == 1)
        }
    }

    @Test func stopsAndStartsAgain() async throws {
        let demo = DemoAPI(host: "127.0.0.1", port: 0)
        #expect(demo.port == 0)
        try demo.start()
        let port = demo.port
        try demo.start()
        #expect(demo.port == port)
        demo.stop()
        demo.stop()
        try demo.start()
        let again = try await Self.curl("'\(demo.endpoint)' --get --data-urlencode 'query={ hero { id } }'")
        #expect(again.body == #"{"data":{"hero":{"id":"2001"}}}"#)
        demo.stop()
    }
}
