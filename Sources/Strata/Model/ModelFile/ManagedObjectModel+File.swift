import Foundation

extension ManagedObjectModel {
    /// Reads a model written by Xcode: an `.xcdatamodel` folder (or its `contents` file), or
    /// an `.xcdatamodeld` bundle, whose current version it reads (see ``ModelBundle``); or a
    /// compiled one, as Core Data's `NSManagedObjectModel(contentsOf:)` does: a `.mom`, or a
    /// `.momd` (its current version).
    ///
    /// - Throws: ``ModelFileError`` with the file and line of what is wrong.
    public init(contentsOf url: URL) throws {
        switch url.pathExtension {
        case "xcdatamodeld", "momd":
            self = try ModelBundle(contentsOf: url).currentVersion.model
            return
        case "mom":
            self = try ManagedObjectModel(compiledAt: url)
            return
        default: break
        }
        let contents = url.pathExtension == "xcdatamodel" ? url.appendingPathComponent("contents") : url
        let data: Data
        do {
            data = try Data(contentsOf: contents)
        } catch {
            throw ModelFileError(.unreadable, file: contents, "cannot read the model file: \(error.localizedDescription)")
        }
        self = try ModelFileReader(file: contents).read(data)
    }
}
