#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Logging

/// Calls `changed` soon after files of a store are written by anyone, on a thread of its own,
/// until stopped: what lets a coordinator notice another process's commits without polling the
/// database fast.
///
/// On Linux it waits on inotify for writes to the files named in `names` inside `directory`
/// (watching the folder, not the files: SQLite deletes and recreates its `-wal` file), calls
/// `changed` when they have gone quiet for a few milliseconds and again 50 ms later, and wakes
/// every `fallback` interval whatever happens, so that a change inotify cannot see (a file
/// system without it, a full event queue) is noticed late, not never. Elsewhere it only wakes
/// on that interval. `changed` must be cheap and never block for long: it runs on the watcher's
/// thread.
final class FileChangeWatcher: Sendable {
    private let stopped = ThreadLocked(false)
    private let logger = Logger(label: "strata.remote-changes")

    init(directory: URL, names: Set<String>, fallback: Duration = .seconds(1), changed: @escaping @Sendable () -> Void) {
        let stopped = stopped
        let logger = logger
        let thread = Thread {
            Self.run(directory: directory, names: names, fallback: fallback, stopped: stopped, logger: logger, changed: changed)
        }
        thread.name = "strata.file-change-watcher"
        thread.start()
    }

    /// Ends the watch: `changed` is not called after the thread's next wake-up (within the
    /// fallback interval).
    func stop() {
        stopped.withLock { $0 = true }
    }

    deinit { stop() }

    private static func run(
        directory: URL, names: Set<String>, fallback: Duration, stopped: ThreadLocked<Bool>, logger: Logger,
        changed: @Sendable () -> Void
    ) {
        let timeout = Int32(fallback.components.seconds * 1000 + fallback.components.attoseconds / 1_000_000_000_000_000)
        #if os(Linux)
        let descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        var watching = descriptor >= 0
            && inotify_add_watch(descriptor, directory.path, UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)) >= 0
        if !watching {
            logger.warning(
                "cannot watch the store's folder; noticing other processes' commits by the clock alone",
                metadata: ["folder": "\(directory.path)", "errno": "\(errno)"])
        }
        defer { if descriptor >= 0 { close(descriptor) } }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        // A write to the log comes before the commit it belongs to is visible (SQLite publishes
        // it in the memory-mapped index, which inotify does not see): the check runs once the
        // writes have gone quiet, and once more a little later.
        let quiet: Int32 = 3
        let again: Int32 = 50
        var recheck = false
        /// Waits for events up to `milliseconds`; whether one of the store's files was written.
        func wait(_ milliseconds: Int32) -> Bool {
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, milliseconds) > 0 else { return false }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno != EAGAIN, errno != EINTR { watching = false }
            return count > 0 && Self.names(in: buffer, count: count).contains { names.contains($0) }
        }
        while !stopped.withLock({ $0 }) {
            guard watching else {
                Thread.sleep(forTimeInterval: Double(timeout) / 1000)
                if !stopped.withLock({ $0 }) { changed() }
                continue
            }
            if wait(recheck ? again : timeout) {
                while watching, wait(quiet) {}
                recheck = true
            } else {
                recheck = false  // the later check, or the fallback interval, is due
            }
            if !stopped.withLock({ $0 }) { changed() }
        }
        #else
        while !stopped.withLock({ $0 }) {
            Thread.sleep(forTimeInterval: Double(timeout) / 1000)
            if !stopped.withLock({ $0 }) { changed() }
        }
        #endif
    }

    #if os(Linux)
    /// The file names of the inotify events in the first `count` bytes of `buffer`.
    private static func names(in buffer: [UInt8], count: Int) -> [String] {
        var names: [String] = []
        var offset = 0
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= count {
            let length = buffer.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self).len) }
            let start = offset + header
            let end = min(count, start + length)
            if length > 0, start < end {
                let bytes = buffer[start..<end].prefix { $0 != 0 }
                names.append(String(decoding: bytes, as: UTF8.self))
            }
            offset = start + length
        }
        return names
    }
    #endif
}
