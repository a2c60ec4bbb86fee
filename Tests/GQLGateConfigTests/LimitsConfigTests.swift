import Testing
@testable import GQLGateConfig

@Suite struct LimitsConfigTests {
    @Test func defaults() {
        let limits = GatewayConfig().limits
        #expect(limits.maxDepth == 15)
        #expect(limits.maxAliases == 30)
        #expect(limits.maxDocumentBytes == 65_536)
    }

    @Test func readsEveryKey() throws {
        let limits = try load("limits: {max_depth: 10, max_aliases: 0, max_document_bytes: 16KiB}").limits
        #expect(limits.maxDepth == 10)
        #expect(limits.maxAliases == 0)
        #expect(limits.maxDocumentBytes == 16_384)
    }

    @Test func rejectsBadValues() {
        #expect(loadError("limits: {max_depth: 0}") == #"limits.max_depth: "0" is not valid: expected an integer >= 1"#)
        #expect(loadError("limits: {max_aliases: -1}") == #"limits.max_aliases: "-1" is not valid: expected an integer >= 0"#)
        #expect(loadError("limits: {max_document_bytes: 64KiBs}")
            == #"limits.max_document_bytes: "64KiBs" is not valid: expected a size such as 64MiB, 512KB, 1GiB or a number of bytes"#)
    }
}
