import Foundation
import StrataFileFormats

extension ManagedObjectModel {
    /// The model as a store carries it (`PersistentStore.modelCacheKey`): its `.xcdatamodel`
    /// contents, LZ4-compressed. Core Data keeps its compiled model in its SQLite stores
    /// (`Z_MODELCACHE`) for the same reason: so that a store can be read without being handed
    /// its model. Everything a model file says is kept — inheritance, inverses, optionality,
    /// constraints, indexes, composites — and the model file writer sorts what it writes, so
    /// the same model always gives the same bytes.
    var storeCacheData: Data {
        var writer = ModelFileWriter(model: self)
        let contents = Data(writer.write().utf8)
        // Compressing a few kilobytes in memory fails only if liblz4 itself does; a store without
        // the cache is still a sound store (tools then fall back to its schema).
        guard let frame = try? contents.withUnsafeBytes({ try LZ4Frame.compress($0) }) else { return Data() }
        return Data(frame)
    }

    /// The model a store's metadata carries, if it carries one (stores Strata wrote before it
    /// kept one do not).
    ///
    /// - Throws: ``ModelFileError`` when the cache is there but cannot be read.
    public init?(cachedInStoreMetadata metadata: [String: MetadataValue]) throws {
        guard case .data(let frame)? = metadata[PersistentStore.modelCacheKey], !frame.isEmpty else { return nil }
        let file = URL(fileURLWithPath: "(the model cached in the store)")
        let contents: [UInt8]
        do {
            contents = try frame.withUnsafeBytes { try LZ4Frame.decompress($0, maximumSize: XMLNode.maximumSize) }
        } catch {
            throw ModelFileError(.unreadable, file: file, "the store's cached model is damaged: \(error)")
        }
        self = try ModelFileReader(file: file).read(Data(contents))
    }
}
