@_spi(GQLGateInternals) import GQLGateCore
import Foundation
import GQLGateEventLoop
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct EventLoopTests {
    @Test func executesClosuresOnItsOwnThreadInOrder() async {
        let loop = EventLoop()
        defer { loop.shutdownAndWait() }
        let seen = await withCheckedContinuation { (continuation: CheckedContinuation<[Int], Never>) in
            let order = Lock<[Int]>([])
            for i in 0..<100 {
                loop.execute {
                    precondition(loop.inLoop)
                    let done = order.withLock { list -> Bool in
                        list.append(i)
                        return list.count == 100
                    }
                    if done { continuation.resume(returning: order.withLock { $0 }) }
                }
            }
        }
        #expect(seen == Array(0..<100))
        #expect(!loop.inLoop)
    }

    @Test func runsTasksThatPreferIt() async {
        let loop = EventLoop()
        defer { loop.shutdownAndWait() }
        let onLoop = await Task(executorPreference: loop) {
            await Task.yield()
            return EventLoop.current === loop
        }.value
        #expect(onLoop)
    }

    @Test func firesTimersInDeadlineOrderAndSkipsCancelledOnes() async {
        let loop = EventLoop()
        defer { loop.shutdownAndWait() }
        let fired = await withCheckedContinuation { (continuation: CheckedContinuation<[String], Never>) in
            loop.execute {
                var names: [String] = []
                loop.schedule(after: .milliseconds(30)) {
                    names.append("late")
                    continuation.resume(returning: names)
                }
                let cancelled = loop.schedule(after: .milliseconds(10)) { names.append("cancelled") }
                loop.schedule(after: .milliseconds(5)) { names.append("early") }
                loop.cancel(cancelled)
            }
        }
        #expect(fired == ["early", "late"])
    }

    @Test func reportsReadableDescriptors() async {
        let loop = EventLoop()
        defer { loop.shutdownAndWait() }
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let readFD = fds[0]
        let byte = await withCheckedContinuation { (continuation: CheckedContinuation<UInt8, Never>) in
            loop.execute {
                let handler = PipeReader(fd: readFD, loop: loop) { continuation.resume(returning: $0) }
                loop.register(readFD, events: EventLoop.readable, handler: handler)
            }
            var value: UInt8 = 42
            _ = write(fds[1], &value, 1)
        }
        #expect(byte == 42)
    }

    @Test func namesItsThreadAfterItsIndex() async {
        let loop = EventLoop(index: 7)
        defer { loop.shutdownAndWait() }
        let name = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            loop.execute {
                var buffer = [CChar](repeating: 0, count: 32)
                let fd = open("/proc/thread-self/comm", O_RDONLY)
                _ = read(fd, &buffer, 31)
                close(fd)
                continuation.resume(returning: String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).filter { $0 != "\n" })
            }
        }
        #expect(name == "gqlgate-loop-7")
    }

    /// Read from the mapping a local lies in, which says nothing under AddressSanitizer (a local
    /// may live on its fake stack): not run there (`make test-sanitize` sets ASAN_OPTIONS).
    @Test(.enabled(if: getenv("ASAN_OPTIONS") == nil))
    func itsThreadHasTheStackDocumentsAreSizedFor() async throws {
        let loop = EventLoop()
        defer { loop.shutdownAndWait() }
        let size = await withCheckedContinuation { (continuation: CheckedContinuation<Int?, Never>) in
            loop.execute {
                var local = 0
                let address = withUnsafeMutablePointer(to: &local) { UInt(bitPattern: $0) }
                continuation.resume(returning: mappingSize(containing: address))
            }
        }
        #expect(try #require(size) >= EventLoop.threadStackBytes)
    }

    @Test func aGroupStoppedWithALoopStuckInWorkGivesUpOnItAtTheDeadline() {
        let group = EventLoopGroup(count: 2)
        let release = Atomic<Bool>(false)
        let started = Atomic<Bool>(false)
        group.loops[1].execute {
            started.store(true, ordering: .releasing)
            while !release.load(ordering: .acquiring) { usleep(1_000) }
        }
        while !started.load(ordering: .acquiring) { usleep(1_000) }
        #expect(group.shutdownAndWait(until: GatewayClock.system.monotonicNanoseconds() + 200_000_000) == [1])
        release.store(true, ordering: .releasing)
        #expect(group.loops[1].waitForThread(until: nil))
    }

    @Test func aGroupOfIdleLoopsStopsWithinTheDeadline() {
        let group = EventLoopGroup(count: 3)
        #expect(group.shutdownAndWait(until: GatewayClock.system.monotonicNanoseconds() + 5_000_000_000).isEmpty)
    }

    @Test func theWatchdogReportsALoopBusyPastItsThresholdOnceWithTheNotedRequest() {
        let group = EventLoopGroup(count: 2)
        defer { group.shutdownAndWait() }
        let reports = Lock<[LoopWatchdog.BusyLoop]>([])
        let watchdog = LoopWatchdog(group: group, threshold: .milliseconds(50)) { busy in reports.withLock { $0.append(busy) } }
        defer { watchdog.stop() }
        let done = Atomic<Bool>(false)
        group.loops[1].execute {
            group.loops[1].working(for: "req-1") {
                while reports.withLock({ $0.isEmpty }) { usleep(1_000) }
                usleep(200_000)  // busy on, past the threshold again: still one report for this stretch
            }
            done.store(true, ordering: .releasing)
        }
        while !done.load(ordering: .acquiring) { usleep(1_000) }
        let seen = reports.withLock { $0 }
        #expect(seen.map(\.index) == [1])
        #expect(seen.first?.requestID == "req-1")
        #expect((seen.first?.busy ?? .zero) > .milliseconds(50))
    }

    @Test func groupHandsOutLoopsRoundRobin() {
        let group = EventLoopGroup(count: 3)
        defer { group.shutdownAndWait() }
        let picked = (0..<6).map { _ in group.next().index }
        #expect(picked == [0, 1, 2, 0, 1, 2])
    }
}

/// The size of the memory mapping holding `address`, from /proc/self/maps
/// (a thread's stack is one mapping, its guard page another).
/// The size of the mapping that holds `address`, from /proc/self/maps read in
/// one `read` (one consistent listing while other tests' threads map and unmap
/// stacks), tried a few times.
private func mappingSize(containing address: UInt) -> Int? {
    for _ in 0..<5 {
        let fd = open("/proc/self/maps", O_RDONLY)
        guard fd >= 0 else { return nil }
        // /proc hands the file out a page or so per read: read to its end (a sanitizer's
        // process has thousands of mappings).
        var buffer = [UInt8](repeating: 0, count: 16 << 20)
        var count = 0
        while count < buffer.count {
            let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            guard got > 0 else { break }
            count += got
        }
        close(fd)
        guard count > 0 else { continue }
        for line in buffer[..<count].split(separator: UInt8(ascii: "\n")) {
            let range = line.prefix { $0 != UInt8(ascii: " ") }.split(separator: UInt8(ascii: "-"))
                .compactMap { UInt(String(decoding: $0, as: UTF8.self), radix: 16) }
            if range.count == 2, range[0] <= address, address < range[1] { return Int(range[1] - range[0]) }
        }
    }
    return nil
}

private final class PipeReader: FileDescriptorHandler {
    let fd: Int32
    let loop: EventLoop
    let done: (UInt8) -> Void

    init(fd: Int32, loop: EventLoop, done: @escaping (UInt8) -> Void) {
        self.fd = fd
        self.loop = loop
        self.done = done
    }

    func handleEvents(_ events: UInt32) {
        var value: UInt8 = 0
        _ = read(fd, &value, 1)
        loop.unregister(fd)
        done(value)
    }
}
