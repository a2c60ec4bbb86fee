import GQLGateCore
import GQLGateExchanges
import GQLGateRedis
import Testing

@Suite struct StoredAnswerEncodingTests {
    private let answer = cachedAnswer(
        #"{"data":{"reviews":[{"stars":5}]}}"#, storedAt: .seconds(1_763_800_000) + .nanoseconds(123_456_789), ttl: .milliseconds(1500),
        tags: CacheTags(entities: ["Review:7", "Review:8"], types: ["Review"], arguments: ["episode": ["JEDI"], "first": ["2", "3"]]))

    @Test func anAnswerComesBackWhole() throws {
        let decoded = try #require(StoredAnswerEncoding.decode(StoredAnswerEncoding.encode(answer)))
        #expect(decoded.status == 200)
        #expect(Array(decoded.headers.map { "\($0.name): \($0.value)" }) == ["Content-Type: application/json", "Cache-Control: max-age=60"])
        #expect(decoded.body.string == answer.body.string)
        #expect(decoded.storedAt == answer.storedAt)
        #expect(decoded.ttl == answer.ttl)
        #expect(decoded.tags == answer.tags)
    }

    @Test func theRecordIsTheSameWhateverTheSetOrder() {
        let reordered = CachedAnswer(
            status: answer.status, headers: answer.headers, body: answer.body, storedAt: answer.storedAt, ttl: answer.ttl,
            tags: CacheTags(entities: ["Review:8", "Review:7"], types: ["Review"], arguments: ["first": ["3", "2"], "episode": ["JEDI"]]))
        #expect(StoredAnswerEncoding.encode(reordered) == StoredAnswerEncoding.encode(answer))
    }

    @Test func emptyBodiesAndHeadersRoundTrip() throws {
        let bare = CachedAnswer(status: 200, headers: [:], body: Bytes(""), storedAt: .zero, ttl: .seconds(1), tags: CacheTags())
        let decoded = try #require(StoredAnswerEncoding.decode(StoredAnswerEncoding.encode(bare)))
        #expect(decoded.headers.isEmpty)
        #expect(decoded.body.count == 0)
    }

    @Test func truncatedExtendedOrForeignRecordsAreRefused() {
        let record = StoredAnswerEncoding.encode(answer)
        for length in [0, 3, 4, 10, record.count / 2, record.count - 1] {
            #expect(StoredAnswerEncoding.decode(Array(record.prefix(length))) == nil, "prefix of \(length) bytes")
        }
        #expect(StoredAnswerEncoding.decode(record + [0]) == nil)
        #expect(StoredAnswerEncoding.decode(Array("GQA1".utf8) + record.dropFirst(4)) == nil)
        #expect(StoredAnswerEncoding.decode(Array(#"{"data":{}}"#.utf8)) == nil)
    }

    @Test func aRecordWithAnyByteChangedIsRefused() {
        let record = StoredAnswerEncoding.encode(answer)
        for index in stride(from: 4, to: record.count, by: max(1, record.count / 64)) {
            var flipped = record
            flipped[index] ^= 0x20
            #expect(StoredAnswerEncoding.decode(flipped) == nil, "byte \(index) flipped")
        }
    }
}
