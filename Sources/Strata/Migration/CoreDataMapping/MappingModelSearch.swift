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

    /// The first of `files` that maps `source` to `destination`, read; `nil` when none does. A
    /// file that cannot be read is skipped (and logged), as Core Data skips what it cannot load.
    ///
    /// - Throws: ``MigrationError`` `.invalidMapping` when the matching file does not fit the
    ///   models or names a policy nobody registered.
    static func mapping(
        from source: ModelBundle.Version, to destination: ModelBundle.Version, among files: [URL]
    ) throws -> (mapping: MappingModel, file: URL)? {
        for url in files {
            let file: CoreDataMappingFile
            do {
                file = try CoreDataMappingFile(contentsOf: url)
            } catch {
                logger.warning("skipping a mapping model that cannot be read", metadata: ["file": "\(url.path)", "error": "\(error)"])
                continue
            }
            guard file.maps(from: source.model, to: destination.model, sourceVersion: source.name, destinationVersion: destination.name) else {
                continue
            }
            return (try file.mappingModel(from: source.model, to: destination.model, policies: [:]), url)
        }
        return nil
    }
}
