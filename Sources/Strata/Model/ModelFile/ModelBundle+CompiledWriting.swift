import Foundation
import StrataFileFormats

extension ModelBundle {
    /// Writes the bundle as momc compiles an `.xcdatamodeld` into a `.momd` folder: one `.mom`
    /// per version (``ManagedObjectModel/compiledModelData()``) and `VersionInfo.plist` (a
    /// binary property list) naming the current version
    /// (`NSManagedObjectModel_CurrentVersionName`) and each version's entity hashes
    /// (`NSManagedObjectModel_VersionHashes`), as the fixtures' `SampleModel.momd` has them. No
    /// `.omo` is written: Core Data loads the `.mom` without one. A folder already at `url` is
    /// replaced only once the new one is whole.
    ///
    /// - Throws: ``ModelFileError``: `.invalidModel` for a version that cannot be compiled,
    ///   `.unreadable` when the folder cannot be written.
    public func writeCompiled(to url: URL) throws {
        let manager = FileManager.default
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).strata-\(UUID().uuidString)")
        do {
            try manager.createDirectory(at: temporary, withIntermediateDirectories: true)
            defer { try? manager.removeItem(at: temporary) }
            var hashes: [(String, PropertyListNode)] = []
            for version in versions {
                try version.model.compiledModelData().write(to: temporary.appendingPathComponent("\(version.name).mom"))
                let entities = version.model.entityVersionHashesByName.sorted { $0.key < $1.key }
                hashes.append((version.name, .dictionary(keys: entities.map { .string($0.key) }, values: entities.map { .data($0.value) })))
            }
            let info = PropertyListNode.dictionary(
                keys: [.string("NSManagedObjectModel_CurrentVersionName"), .string("NSManagedObjectModel_VersionHashes")],
                values: [.string(currentVersion.name), .dictionary(keys: hashes.map { .string($0.0) }, values: hashes.map(\.1))])
            try BinaryPropertyListWriter.data(info).write(to: temporary.appendingPathComponent("VersionInfo.plist"))
            if manager.fileExists(atPath: url.path) { try manager.removeItem(at: url) }
            try manager.moveItem(at: temporary, to: url)
        } catch let error as ModelFileError {
            throw error
        } catch {
            throw ModelFileError(.unreadable, file: url, "cannot write the compiled model: \(error.localizedDescription)")
        }
    }
}
