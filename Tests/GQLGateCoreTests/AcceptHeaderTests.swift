import Testing
@testable import GQLGateCore

@Suite struct AcceptHeaderTests {
    private func rating(_ header: String, _ type: String = "application", _ subtype: String = "json") -> String {
        guard let found = AcceptHeader(header).rating(of: type, subtype) else { return "none" }
        return "\(found.quality) \(found.specificity)"
    }

    @Test func theMostSpecificRangeGivesTheWeight() {
        #expect(rating("application/json") == "1000 exact")
        #expect(rating("application/json;charset=utf-8") == "1000 exactWithParameters")
        #expect(rating("*/*;q=0.8, application/json;q=0.5") == "500 exact")
        #expect(rating("application/*;q=0.3, */*") == "300 anySubtype")
        #expect(rating("*/*;q=0.1") == "100 anyType")
        #expect(rating("application/json;q=0, */*") == "0 exact")
        #expect(rating("application/json;q=0.2, application/json;q=0.7") == "700 exact")
        #expect(rating("text/html, application/xml") == "none")
        #expect(rating("") == "none")
    }

    @Test func namesAndParametersAreReadLeniently() {
        #expect(rating(" Application/JSON ; Q=0.5 ") == "500 exact")
        #expect(rating("application/json ; charset=\"UTF-8\"") == "1000 exactWithParameters")
        #expect(rating("application/json;q=2") == "0 exact")
        #expect(rating("application/json;q=abc") == "0 exact")
        #expect(rating(",, application/json,") == "1000 exact")
        #expect(rating("application") == "none")
        let range = MediaRange.list("multipart/mixed; Boundary=\"graphql\"; subscriptionSpec=1.0; q=0.9; ext=1")
        #expect(range == [MediaRange.list("multipart/mixed;boundary=graphql;subscriptionspec=1.0;q=0.9")[0]])
        #expect(range.first?.parameter("subscriptionspec") == "1.0")
        #expect(range.first?.parameter("ext") == nil)
    }

    @Test func aConditionLeavesRangesOut() {
        let header = AcceptHeader("application/json;charset=latin1, */*;q=0.2")
        let rating = header.rating(of: "application", "json") { $0.parameter("charset") == nil }
        #expect(rating == AcceptHeader.Rating(quality: 200, specificity: .anyType))
    }

    @Test func namingATypeNeedsItsOwnEntryAndAWeight() {
        #expect(AcceptHeader("multipart/mixed;deferSpec=20220824, application/json").names("multipart", "mixed"))
        #expect(!AcceptHeader("*/*").names("multipart", "mixed"))
        #expect(!AcceptHeader("multipart/*").names("multipart", "mixed"))
        #expect(!AcceptHeader("multipart/mixed;q=0").names("multipart", "mixed"))
        #expect(!AcceptHeader("multipart/mixed").names("multipart", "mixed") { $0.parameter("deferspec") != nil })
    }
}
