@_spi(GQLGateInternals) import GQLGateCore
import Testing

@Suite struct LineBudgetTests {
    @Test func atMostTheBudgetPerWindowThenTheCountLeftOutWithTheNextLine() {
        let clock = ManualClock()
        let budget = LineBudget(lines: 2, window: .seconds(10), clock: clock.clock)
        #expect(budget.take() == 0)
        #expect(budget.take() == 0)
        #expect((0..<5).map { _ in budget.take() } == [nil, nil, nil, nil, nil])
        clock.advance(by: .seconds(9))
        #expect(budget.take() == nil)
        clock.advance(by: .seconds(1))
        #expect(budget.take() == 6)
        #expect(budget.take() == 0)
        #expect(budget.take() == nil)
    }
}
