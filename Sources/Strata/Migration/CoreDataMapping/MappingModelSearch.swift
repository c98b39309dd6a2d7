import Foundation
import Logging

/// Finds Core Data mapping models for a migration step among files and folders, as Core Data's
/// `NSMappingModel(from:forSourceModel:destinationModel:)` searches an app's bundles: compiled
/// `.cdm` files and Xcode's `.xcmappingmodel` folders, each taken when it maps the step's two
/// models (``CoreDataMappingFile/maps(from:to:sourceVersion:destinationVersion:)``).
enum MappingModelSearch {
    private static let logger = Logger(label: "strata.migration")

    /// The mapping model files at `locations`: each a mapping model, or a folder whose mapping
    /// models (not its subfolders') are taken, in name order.
    static func files(at locations: [URL]) -> [URL] {
        var found: [URL] = []
        for location in locations {
            if CoreDataMappingFile.isCoreDataMapping(location) && location.pathExtension != "xml" {
                found.append(location)
                continue
            }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: location.path)) ?? []
            for name in names.sorted() where name.hasSuffix(".cdm") || name.hasSuffix(".xcmappingmodel") {
                found.append(location.appendingPathComponent(name))
            }
        }
        return found
    }

    /// The mapping models at `locations` (see ``files(at:)``), read once for every step they are
    /// matched against. A file that cannot be read is skipped (and logged), as Core Data skips
    /// what it cannot load.
    static func read(at locations: [URL]) -> [CoreDataMappingFile] {
        files(at: locations).compactMap { url in
            do {
                return try CoreDataMappingFile(contentsOf: url)
            } catch {
                logger.warning("skipping a mapping model that cannot be read", metadata: ["file": "\(url.path)", "error": "\(error)"])
                return nil
            }
        }
    }

    /// The first of `files` that maps `source` to `destination`; `nil` when none does.
    ///
    /// - Throws: ``MigrationError`` `.invalidMapping` when the matching file does not fit the
    ///   models or names a policy nobody registered.
    static func mapping(
        from source: ModelBundle.Version, to destination: ModelBundle.Version, among files: [CoreDataMappingFile]
    ) throws -> (mapping: MappingModel, file: URL)? {
        for file in files
        where file.maps(from: source.model, to: destination.model, sourceVersion: source.name, destinationVersion: destination.name) {
            return (try file.mappingModel(from: source.model, to: destination.model, policies: [:]), file.file)
        }
        return nil
    }
}
