#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// An `flock` on a store file, held while a coordinator has the store open: exclusive for a
/// writer, shared for a read-only store. A second writer, in this process or another, is
/// refused at once with ``StoreError/Code/storeInUse``.
final class StoreFileLock {
    private(set) var descriptor: Int32

    /// Locks the file at `url`.
    init(url: URL, exclusive: Bool) throws {
        descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StoreError(.unreadable, file: url, "cannot open the store: \(String(cString: strerror(errno)))")
        }
        guard Self.lock(descriptor, exclusive: exclusive) else {
            let reason = errno
            close(descriptor)
            // A class whose initialiser throws after setting every property is deinitialised:
            // mark the descriptor closed, or deinit would close whatever file reused its number.
            descriptor = -1
            if reason == EWOULDBLOCK {
                throw StoreError(
                    .storeInUse, file: url,
                    "the store is in use: another coordinator (in this process or another) has it open for writing")
            }
            throw StoreError(.unreadable, file: url, "cannot lock the store: \(String(cString: strerror(reason)))")
        }
    }

    /// Takes the lock without blocking, trying again for a few milliseconds: a process being
    /// spawned holds a copy of every descriptor until it execs, so a lock released just now may
    /// still be held for an instant.
    private static func lock(_ descriptor: Int32, exclusive: Bool) -> Bool {
        for attempt in 0..<10 {
            if flock(descriptor, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 { return true }
            guard errno == EWOULDBLOCK, attempt < 9 else { return false }
            usleep(5_000)
        }
        return false
    }

    /// Moves the lock to another open file (the new store file a save renamed into place).
    func replace(with newDescriptor: Int32) {
        close(descriptor)
        descriptor = newDescriptor
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }
}
