import Foundation
import Strata

/// Checks a store file whole: every chunk decodes and its checksum holds, every reference
/// number is unique in its entity hierarchy, every relationship points at an object of the
/// store, and every relationship with an inverse is mirrored by it.
struct BinaryStoreVerifier {
    let file: BinaryStoreFile
    /// The model the store matched, when one was given: it tells which entities share reference
    /// numbers (a hierarchy).
    var model: ManagedObjectModel?
    private(set) var objectCount = 0
    private(set) var chunkCount = 0
    var problems: [String] = []

    init(file: BinaryStoreFile) {
        self.file = file
    }

    mutating func run() throws {
        var related: [ManagedObjectID: [String: Set<ManagedObjectID>]] = [:]
        var seen: Set<ManagedObjectID> = []
        var referencesByRoot: [String: Set<Int64>] = [:]
        do {
            try file.forEachChunk { chunk in
                chunkCount += 1
                if let error = chunk.error {
                    problems.append("chunk \(chunk.index) at byte \(chunk.offset): \(error.message)")
                    return
                }
                for object in chunk.objects {
                    objectCount += 1
                    let root = rootEntity(of: object.objectID.entityName)
                    if !seen.insert(object.objectID).inserted {
                        problems.append("\(object.objectID) is stored twice")
                    } else if let reference = object.objectID.referenceNumber,
                        !referencesByRoot[root, default: []].insert(reference).inserted
                    {
                        problems.append("\(object.objectID) shares its reference number with another object of the \(root) hierarchy")
                    }
                    related[object.objectID] = object.relatedObjectIDs.mapValues(Set.init)
                }
            }
        } catch let error as StoreError {
            problems.append(error.description)
        }
        let entities = Dictionary(uniqueKeysWithValues: file.entities.map { ($0.name, $0) })
        var found: [String] = []
        for (source, relationships) in related {
            guard let entity = entities[source.entityName] else { continue }
            for relationship in entity.relationships {
                for target in relationships[relationship.name] ?? [] {
                    guard let targetRelationships = related[target] else {
                        found.append("\(source) \(relationship.name) points at \(target), which the store does not hold")
                        continue
                    }
                    if let inverse = relationship.inverse, !(targetRelationships[inverse] ?? []).contains(source) {
                        found.append("\(source) \(relationship.name) holds \(target), whose \(inverse) does not hold it back")
                    }
                }
            }
        }
        problems += found.sorted()
    }

    private func rootEntity(of name: String) -> String {
        guard let model else { return name }
        var entity = model.entity(named: name)
        while let parent = entity?.superentityName, let next = model.entity(named: parent) { entity = next }
        return entity?.name ?? name
    }
}
