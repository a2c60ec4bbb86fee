import FuzzerSupport
import GQLGateCore
import GQLGateRedis

/// One input: any bytes as what a Redis server answers, read in two pieces
/// (split at the first byte's value) with small bounds, so that bounded and
/// unbounded replies, broken ones and replies cut anywhere are all seen.
/// Reading either gives whole replies or refuses; every bulk reply is then
/// read as a stored answer record, which is either a whole, checked record
/// or refused.
private func fuzzRedisReplies(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: count)
    let split = count == 0 ? 0 : Int(input[0]) % (count + 1)
    let reader = RedisReplyReader(maxElements: 64, maxBytes: 4096)
    var replies: [RedisReply] = []
    do {
        replies += try reader.read(UnsafeRawBufferPointer(rebasing: input[..<split]))
        replies += try reader.read(UnsafeRawBufferPointer(rebasing: input[split...]))
    } catch {
        return 0
    }
    for reply in replies { check(reply) }
    return 0
}

/// A bulk reply read as a stored answer: decoding it again after encoding gives the same record.
private func check(_ reply: RedisReply) {
    switch reply {
    case .bulk(let bytes):
        guard let answer = StoredAnswerEncoding.decode(bytes) else { return }
        precondition(StoredAnswerEncoding.decode(StoredAnswerEncoding.encode(answer)) != nil, "a decoded record does not encode to one")
    case .array(let elements):
        for element in elements { check(element) }
    default:
        break
    }
}

/// Runs libFuzzer on `fuzzRedisReplies`.
@main
enum RedisRepliesFuzzer {
    static func main() {
        runFuzzer { fuzzRedisReplies($0, $1) }
    }
}
