import Foundation
import StrataFileFormats

extension CoreDataMappingFile {
    /// Reads a compiled mapping model (`.cdm`): a binary `NSKeyedArchiver` property list whose
    /// root is an `NSMappingModel` with `NSEntityMappings` (each an `NSEntityMapping`:
    /// `NSMappingName`, `NSSourceEntityName`, `NSDestinationEntityName`, their
    /// `…VersionHash`es, `NSEntityMigrationPolicyClassName`, `NSSourceExpression`, and
    /// `NSAttributeMappings`/`NSRelationshipMappings` of `NSPropertyMapping`s:
    /// `NSDestinationPropertyName`, `NSValueExpression`), as the fixture's `V2toV3.cdm` shows.
    ///
    /// - Throws: ``ModelFileError`` naming the file and the mapping: bytes that are not a keyed
    ///   archive of an `NSMappingModel`, an expression that cannot be read.
    init(compiledMappingAt url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ModelFileError(.unreadable, file: url, "cannot read the file: \(error.localizedDescription)")
        }
        try self.init(compiledMapping: data, file: url)
    }

    /// As ``init(compiledMappingAt:)``, from the bytes of `file`.
    init(compiledMapping data: Data, file url: URL) throws {
        do {
            let archive = try KeyedArchive(BinaryPropertyList(data))
            guard let rootUID = archive.top["root"], let root = try archive.object(rootUID), root.className == "NSMappingModel" else {
                throw ModelFileError(.notAModel, file: url, "the archive's root is not an NSMappingModel: the file is not a compiled mapping model")
            }
            var mappings = try archive.elements(root["NSEntityMappings"]).compactMap { try archive.object($0) }
            if mappings.isEmpty {
                mappings = try archive.entries(root["NSEntityMappingsByName"]).compactMap { try archive.object($0.value) }
            }
            self.file = url
            entities = try mappings.map { try Self.entity($0, in: archive, file: url) }
            sourceModelPath = nil
            destinationModelPath = nil
        } catch let failure as BinaryPropertyList.Failure {
            throw ModelFileError(.notAModel, file: url, "the file is not a compiled mapping model (a keyed archive): \(failure.description)")
        }
    }

    private static func entity(_ object: KeyedArchive.Object, in archive: KeyedArchive, file: URL) throws -> Entity {
        guard object.className == "NSEntityMapping" else {
            throw ModelFileError(.invalidValue, file: file, "an entity mapping is an \(object.className), not an NSEntityMapping")
        }
        let source = try archive.string(object["NSSourceEntityName"])
        let destination = try archive.string(object["NSDestinationEntityName"])
        let name = try archive.string(object["NSMappingName"]) ?? defaultName(source: source, destination: destination)
        let place = "NSEntityMapping \(name)"
        func expression(_ field: KeyedArchive.Value?, _ what: String) throws -> ValueExpression? {
            do {
                return try ArchivedExpression.read(field, in: archive)
            } catch let error as ArchivedExpression.Unreadable {
                throw ModelFileError(.invalidValue, file: file, "\(what): the expression cannot be read: \(error.description)")
            }
        }
        func properties(_ key: String) throws -> [Property] {
            try archive.elements(object[key]).compactMap { try archive.object($0) }.map { property in
                guard let propertyName = try archive.string(property["NSDestinationPropertyName"]) ?? archive.string(property["NSName"]) else {
                    throw ModelFileError(.missingAttribute, file: file, "a property mapping of \(name) has no destination property name")
                }
                if try archive.object(property["NSPropertyTransforms"]) != nil {
                    throw ModelFileError(.invalidValue, file: file, "\(name).\(propertyName): property transforms are not read; write a value expression")
                }
                return Property(name: propertyName, expression: try expression(property["NSValueExpression"], "\(name).\(propertyName)"))
            }
        }
        return Entity(
            name: name, source: source, destination: destination, sourceHash: try data(object["NSSourceEntityVersionHash"], in: archive),
            destinationHash: try data(object["NSDestinationEntityVersionHash"], in: archive),
            policyClassName: try archive.string(object["NSEntityMigrationPolicyClassName"]),
            sourceFilter: try sourceFilter(of: try expression(object["NSSourceExpression"], "\(name)'s source"), place: place, file: file),
            fillsUnwrittenProperties: false, attributes: try properties("NSAttributeMappings"),
            relationships: try properties("NSRelationshipMappings"), place: place)
    }

    private static func data(_ field: KeyedArchive.Value?, in archive: KeyedArchive) throws -> Data? {
        switch try archive.resolve(field) {
        case .data(let bytes)?: return bytes
        case .dictionary?:
            // An NSData object rather than inline bytes.
            if case .data(let bytes)? = try archive.resolve(try archive.object(field)?["NS.data"]) { return bytes }
            return nil
        default: return nil
        }
    }
}
