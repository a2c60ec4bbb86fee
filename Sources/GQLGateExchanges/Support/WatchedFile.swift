import GQLGateCore
#if canImport(Glibc)
import Glibc
#endif

/// A file read again when it changes: its identity (device, inode), size and
/// modification time are checked at most once per `checkInterval`. Follows
/// symbolic links, so a Kubernetes projected volume's swap of `..data` counts
/// as a change.
struct WatchedFile: Sendable {
    /// What `stat` says of the file; a different stamp means a different file.
    struct Stamp: Equatable, Sendable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modifiedSeconds: Int64
        var modifiedNanoseconds: Int64
    }

    let path: String
    let checkInterval: UInt64
    /// The largest file read, in bytes; a longer one reads as unreadable.
    let sizeLimit: Int
    private(set) var stamp: Stamp?
    private var lastCheck: UInt64 = 0

    init(path: String, checkInterval: Duration = .seconds(1), sizeLimit: Int = 1 << 20) {
        self.path = path
        self.checkInterval = checkInterval.nanoseconds
        self.sizeLimit = sizeLimit
    }

    /// The file's contents, and its stamp remembered; `nil` when it cannot be read.
    mutating func read(now: UInt64) -> String? {
        lastCheck = now
        stamp = Self.stamp(of: path)
        return Self.contents(of: path, limit: sizeLimit)
    }

    /// Whether the file looks different from when it was last read; checks
    /// at most once per `checkInterval`.
    mutating func hasChanged(now: UInt64) -> Bool {
        guard now &- lastCheck >= checkInterval else { return false }
        lastCheck = now
        return Self.stamp(of: path) != stamp
    }

    static func stamp(of path: String) -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Stamp(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                     modifiedSeconds: Int64(info.st_mtim.tv_sec), modifiedNanoseconds: Int64(info.st_mtim.tv_nsec))
    }

    /// The whole file as UTF-8 text (at most 1 MiB), or `nil`.
    static func contents(of path: String, limit: Int = 1 << 20) -> String? {
        FileText.read(path, limit: limit)
    }
}
