@testable import GQLGate
import Testing

@Suite struct RequestIDGeneratorTests {
    @Test func idsAre32HexDigitsAndNeverRepeat() {
        let generator = RequestIDGenerator()
        let ids = (0..<20_000).map { _ in generator.next() }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
    }

    @Test func twoGeneratorsDoNotCollide() {
        let a = RequestIDGenerator(), b = RequestIDGenerator()
        let first = Set((0..<1000).map { _ in a.next() })
        #expect((0..<1000).allSatisfy { _ in !first.contains(b.next()) })
    }
}
