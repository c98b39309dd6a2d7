#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A store file put in another's place whole: what replacing a file store does.
enum StoreFileCopy {
    /// Copies `source` beside `destination`, flushes it, and renames it over `destination`
    /// while holding the destination's lock (a store another coordinator has open for writing
    /// is refused with ``StoreError/Code/storeInUse``, as a second writer is): the destination is
    /// the old file or the new one, never part of either.
    static func copy(_ source: URL, over destination: URL) throws {
        let folder = destination.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let lock = FileManager.default.fileExists(atPath: destination.path) ? try StoreFileLock(url: destination, exclusive: true) : nil
        let temporary = folder.appendingPathComponent(".\(destination.lastPathComponent).strata-tmp-\(UUID().uuidString)")
        // The lock is held until the new file is in place.
        try withExtendedLifetime(lock) {
            do {
                try FileManager.default.copyItem(at: source, to: temporary)
                let descriptor = open(temporary.path, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0, fsync(descriptor) == 0 else {
                    if descriptor >= 0 { close(descriptor) }
                    throw StoreError(.writeFailed, file: temporary, "cannot flush the copy of the store")
                }
                close(descriptor)
                guard rename(temporary.path, destination.path) == 0 else {
                    throw StoreError(.writeFailed, file: destination, "cannot move the copy into place: \(String(cString: strerror(errno)))")
                }
            } catch {
                unlink(temporary.path)
                throw error
            }
        }
        let directory = open(folder.path, O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}
