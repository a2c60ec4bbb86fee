/// Where one loop's commands go: one connection (a server, or the master
/// Sentinel names) or a cluster's nodes by slot. Loop-bound.
protocol RedisRoute: AnyObject {
    /// Connects ahead of the first command (learns the slot map of a cluster).
    func start()
    /// Sends `arguments`; `completion` runs on the loop with the reply or why there is none.
    func send(_ arguments: [[UInt8]], completion: @escaping (Result<RedisReply, RedisError>) -> Void)
    /// Closes every connection; commands waiting fail.
    func close()
}

extension RedisConnection: RedisRoute {}
