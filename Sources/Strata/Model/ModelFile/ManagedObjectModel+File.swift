import Foundation

extension ManagedObjectModel {
    /// Reads a model written by Xcode: an `.xcdatamodel` folder (or its `contents` file), or
    /// an `.xcdatamodeld` bundle, whose current version it reads (see ``ModelBundle``).
    ///
    /// - Throws: ``ModelFileError`` with the file and line of what is wrong.
    public init(contentsOf url: URL) throws {
        if url.pathExtension == "xcdatamodeld" {
            self = try ModelBundle(contentsOf: url).currentVersion.model
            return
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
