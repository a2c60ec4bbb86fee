@_spi(GQLGateInternals) import GQLGateCore
import CLinuxShims
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Reacts to readiness of a file descriptor registered on an `EventLoop`.
/// Called on the loop's thread only.
package protocol FileDescriptorHandler: AnyObject {
    /// `events` holds the epoll flags that fired (`EventLoop.readable`, ...).
    func handleEvents(_ events: UInt32)
}

/// One gateway thread: an epoll fd, an eventfd inbox and a timer queue, and a
/// Swift `TaskExecutor`, so async code whose task prefers this loop runs here.
///
/// `@unchecked Sendable`: the inbox is guarded by a `Lock`; every other
/// property is touched only on the loop's own thread (the registration and
/// timer methods say so and check it in debug builds). Those properties are
/// `@exclusivity(unchecked)`: one thread, no overlapping access, so the
/// run-time check (about 80 instructions an access, several a request) only costs.
public final class EventLoop: TaskExecutor, @unchecked Sendable {
    /// epoll flag: readable.
    package static let readable = gqlgate_epollin
    /// epoll flag: writable.
    package static let writable = gqlgate_epollout
    /// epoll flag: error.
    package static let error = gqlgate_epollerr
    /// epoll flag: hang-up.
    package static let hangUp = gqlgate_epollhup

    private enum Work {
        case job(UnownedJob)
        case closure(@Sendable () -> Void)
    }

    /// Position of this loop in its group.
    package let index: Int
    private let epollFD: Int32
    private let wakeFD: Int32
    private let inbox = Lock<[Work]>([])
    @exclusivity(unchecked) private var local: [Work] = []
    /// The batch `runLocalWork` is running; swapped with `local`, so that
    /// neither array gives up its buffer and a batch allocates nothing.
    @exclusivity(unchecked) private var runningBatch: [Work] = []
    /// The inbox's other buffer: `drainInbox` swaps it in under the lock.
    @exclusivity(unchecked) private var drainedInbox: [Work] = []
    @exclusivity(unchecked) private var handlers: [Int32: (handler: any FileDescriptorHandler, events: UInt32)] = [:]
    @exclusivity(unchecked) private var timers = TimerQueue()
    @exclusivity(unchecked) private var running = true
    private var thread: pthread_t?
    /// Set by the thread as its last step, so a stop can wait with a deadline.
    private let finished = Atomic<Bool>(false)
    /// Signalled once `finished` is set.
    private let threadEnded = ChangeSignal()
    /// When the loop last stopped waiting for events (monotonic
    /// nanoseconds); 0 while it waits. Read by `LoopWatchdog`.
    private let busySince = Atomic<UInt64>(0)
    /// The request the loop's current work is for, when noted (`working(for:_:)`).
    private let currentRequest = Lock<String?>(nil)

    /// Each loop thread's stack: 16 MiB of address space, touched only as
    /// used. Documents nest at most 256 levels (`DocumentNesting.limit` in
    /// GQLGatePipeline), and parsing and analysing one that deep takes under
    /// 2 MiB in a debug build: the bound fits eight times over, whatever the
    /// process's default thread stack (`ulimit -s`) is.
    package static let threadStackBytes = 16 << 20

    /// Creates the loop and starts its thread.
    package init(index: Int = 0) {
        self.index = index
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        precondition(epollFD >= 0 && wakeFD >= 0, "cannot create epoll/eventfd: errno \(errno)")
        var event = epoll_event()
        event.events = Self.readable
        event.data.fd = wakeFD
        epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event)
        let box = Unmanaged.passRetained(self).toOpaque()  // released by the thread's start routine
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, Self.threadStackBytes)
        let rc = pthread_create(&thread, &attributes, { argument in
            let loop = Unmanaged<EventLoop>.fromOpaque(argument!).takeRetainedValue()
            loop.run()
            loop.finished.store(true, ordering: .releasing)
            loop.threadEnded.signal()
            return nil
        }, box)
        precondition(rc == 0, "cannot start event loop thread: \(rc)")
        self.thread = thread
    }

    deinit {
        close(epollFD)
        close(wakeFD)
    }

    // MARK: - Identity

    private static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The loop whose thread is running the caller, if any.
    package static var current: EventLoop? {
        guard let pointer = pthread_getspecific(currentKey) else { return nil }
        return Unmanaged<EventLoop>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Whether the caller runs on this loop's thread.
    public var inLoop: Bool {
        pthread_getspecific(Self.currentKey) == Unmanaged.passUnretained(self).toOpaque()
    }

    // MARK: - Work from any thread

    /// Runs `work` on the loop's thread, soon.
    package func execute(_ work: @escaping @Sendable () -> Void) {
        submit(.closure(work))
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)))
    }

    private func submit(_ work: Work) {
        if inLoop {
            local.append(work)
            return
        }
        let wasEmpty = inbox.withLock { queue in
            queue.append(work)
            return queue.count == 1
        }
        if wasEmpty {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
    }

    /// Stops the loop after the work queued so far, and waits for its thread.
    package func shutdownAndWait() {
        requestShutdown()
        _ = waitForThread(until: nil)
    }

    /// Asks the loop to stop after the work queued so far; returns at once.
    package func requestShutdown() {
        execute { [unowned self] in self.running = false }
    }

    /// Waits for the thread of a loop asked to stop, until `deadline`
    /// (monotonic nanoseconds, `GatewayClock`; nil: however long it takes). False when
    /// the thread still runs then — a piece of work that never returns — and
    /// is left to the process's exit.
    package func waitForThread(until deadline: UInt64?) -> Bool {
        guard let thread, !inLoop else { return true }
        if let deadline, !threadEnded.wait(until: { finished.load(ordering: .acquiring) }, deadline: deadline) {
            return false
        }
        pthread_join(thread, nil)
        self.thread = nil
        return true
    }

    // MARK: - Busy stretches

    /// Runs `work` noted as being for the request `requestID`, so that a
    /// watchdog reporting this loop busy can name it. Loop thread only.
    package func working<T, E: Error>(for requestID: String, _ work: () throws(E) -> T) throws(E) -> T {
        assert(inLoop)
        currentRequest.withLock { $0 = requestID }
        defer { currentRequest.withLock { $0 = nil } }
        return try work()
    }

    /// Since when (monotonic nanoseconds, `GatewayClock`) the loop has been running
    /// work without waiting for events, and for which request when noted;
    /// nil while it waits. Any thread.
    package func busyStretch() -> (since: UInt64, requestID: String?)? {
        let since = busySince.load(ordering: .relaxed)
        guard since != 0 else { return nil }
        return (since, currentRequest.withLock { $0 })
    }

    // MARK: - Loop-thread API

    /// Watches `fd` for `events`; `handler` is kept until `unregister`.
    /// Registering again with the same events and handler costs one lookup
    /// (a connection settles its interest after every write). Loop thread only.
    package func register(_ fd: Int32, events: UInt32, handler: any FileDescriptorHandler) {
        assert(inLoop)
        let previous = handlers[fd]
        if let previous, previous.events == events, previous.handler === handler { return }
        handlers[fd] = (handler, events)
        if previous?.events == events { return }
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        if previous == nil || epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event) != 0 {
            epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event)
        }
    }

    /// Stops watching `fd`. Loop thread only.
    package func unregister(_ fd: Int32) {
        assert(inLoop)
        guard handlers.removeValue(forKey: fd) != nil else { return }
        var event = epoll_event()
        epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &event)
    }

    /// Runs `action` on the loop after `delay`. Loop thread only.
    @discardableResult
    package func schedule(after delay: Duration, _ action: @escaping () -> Void) -> EventLoopTimerID {
        assert(inLoop)
        return timers.schedule(at: GatewayClock.system.monotonicNanoseconds() + delay.nanoseconds, action)
    }

    /// Cancels a timer that has not fired yet. Loop thread only.
    package func cancel(_ timer: EventLoopTimerID) {
        assert(inLoop)
        timers.cancel(timer)
    }

    // MARK: - The loop

    private func run() {
        pthread_setspecific(Self.currentKey, Unmanaged.passUnretained(self).toOpaque())
        gqlgate_set_thread_name("gqlgate-loop-\(index)")
        let executor = asUnownedTaskExecutor()
        var events = [epoll_event](repeating: epoll_event(), count: 128)
        while running {
            runLocalWork(executor)
            guard running else { break }
            busySince.store(0, ordering: .relaxed)
            let count = events.withUnsafeMutableBufferPointer { buffer in
                epoll_wait(epollFD, buffer.baseAddress, Int32(buffer.count), waitTimeout())
            }
            busySince.store(GatewayClock.system.monotonicNanoseconds(), ordering: .relaxed)
            if count < 0 {
                precondition(errno == EINTR, "epoll_wait failed: errno \(errno)")
                continue
            }
            for i in 0..<Int(count) {
                let fd = events[i].data.fd
                if fd == wakeFD {
                    drainInbox()
                } else if let registration = handlers[fd] {
                    registration.handler.handleEvents(events[i].events)
                }
            }
            if !timers.isEmpty {
                for action in timers.popDue(now: GatewayClock.system.monotonicNanoseconds()) { action() }
            }
        }
        runLocalWork(executor)
        pthread_setspecific(Self.currentKey, nil)
    }

    private func runLocalWork(_ executor: UnownedTaskExecutor) {
        while !local.isEmpty {
            swap(&local, &runningBatch)  // work queued by this batch goes to `local`, the next batch
            for work in runningBatch {
                switch work {
                case .job(let job): job.runSynchronously(on: executor)
                case .closure(let closure): closure()
                }
            }
            runningBatch.removeAll(keepingCapacity: true)
            if !running { return }
        }
    }

    private func waitTimeout() -> Int32 {
        if !local.isEmpty { return 0 }
        guard let deadline = timers.nextDeadline() else { return -1 }
        let now = GatewayClock.system.monotonicNanoseconds()
        guard deadline > now else { return 0 }
        return Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
    }

    private func drainInbox() {
        var counter: UInt64 = 0
        _ = read(wakeFD, &counter, 8)
        // Two buffers swapped under the lock: other threads wait for no copy,
        // and neither buffer is given up.
        inbox.withLock { swap(&$0, &drainedInbox) }
        local.append(contentsOf: drainedInbox)
        drainedInbox.removeAll(keepingCapacity: true)
    }
}
