#if canImport(Glibc)
import Glibc
#endif

/// A file read again when it changes: its identity (device, inode), size and
/// modification time are checked at most once per `checkInterval`. Follows
/// symbolic links, so a Kubernetes projected volume's swap of `..data` counts
/// as a change.
package struct WatchedFile: Sendable {
    /// What `stat` says of the file; a different stamp means a different file.
    package struct Stamp: Equatable, Sendable {
        package var device: UInt64
        package var inode: UInt64
        package var size: Int64
        package var modifiedSeconds: Int64
        package var modifiedNanoseconds: Int64
    }

    package let path: String
    let checkInterval: UInt64
    /// The largest file read, in bytes; a longer one reads as unreadable.
    let sizeLimit: Int
    package private(set) var stamp: Stamp?
    private var lastCheck: UInt64 = 0

    package init(path: String, checkInterval: Duration = .seconds(1), sizeLimit: Int = 1 << 20) {
        self.path = path
        self.checkInterval = checkInterval.nanoseconds
        self.sizeLimit = sizeLimit
    }

    /// The file's contents, and its stamp remembered; `nil` when it cannot be read.
    package mutating func read(now: UInt64) -> String? {
        lastCheck = now
        stamp = Self.stamp(of: path)
        return Self.contents(of: path, limit: sizeLimit)
    }

    /// Whether the file looks different from when it was last read; checks
    /// at most once per `checkInterval`.
    package mutating func hasChanged(now: UInt64) -> Bool {
        guard now &- lastCheck >= checkInterval else { return false }
        lastCheck = now
        return Self.stamp(of: path) != stamp
    }

    package static func stamp(of path: String) -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Stamp(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                     modifiedSeconds: Int64(info.st_mtim.tv_sec), modifiedNanoseconds: Int64(info.st_mtim.tv_nsec))
    }

    /// The whole file as UTF-8 text (at most 1 MiB), or `nil`.
    package static func contents(of path: String, limit: Int = 1 << 20) -> String? {
        FileText.read(path, limit: limit)
    }
}
