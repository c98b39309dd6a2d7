import Foundation
import StrataFileFormats

extension ManagedObjectModel {
    /// The model as momc compiles it into a `.mom`: an `NSKeyedArchiver` archive of
    /// `NSManagedObjectModel` (see `CompiledModelWriter` for what it holds, and what not). Read
    /// back with ``init(compiledAt:)``, it hashes as this model does.
    ///
    /// - Throws: ``ModelFileError`` `.invalidModel` for a model that cannot be archived (a
    ///   derivation Strata cannot express as an `NSExpression`).
    public func compiledModelData() throws -> Data {
        do {
            return try CompiledModelWriter.archive(self)
        } catch {
            throw ModelFileError(.invalidModel, file: URL(fileURLWithPath: "(compiled model)"), "the model cannot be compiled: \(error)")
        }
    }

    /// The model as Core Data caches it in a SQLite store's `Z_MODELCACHE`: the compiled
    /// archive, as a raw DEFLATE stream.
    package func coreDataModelCache() throws -> Data {
        try RawDeflate.deflate(try compiledModelData())
    }
}
