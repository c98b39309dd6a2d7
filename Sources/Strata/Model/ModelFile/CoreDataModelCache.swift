import Foundation
import StrataFileFormats

/// Reads the model Core Data caches in its SQLite stores (`Z_MODELCACHE.Z_CONTENT`): a raw
/// DEFLATE stream of a binary property list in `NSKeyedArchiver` form, whose root is the
/// `NSManagedObjectModel` (`formats/coredata-version-hashes.md`, "The model a store carries").
///
/// What decides storage and version hashes is read whole: entities, inheritance, abstractness,
/// attributes (types, optionality, transience, external storage, preserve-after-deletion,
/// derivations), relationships (destination, inverse, counts, order, delete rule), uniqueness
/// constraints, version hash modifiers and renaming identifiers, so that the model hashes as the
/// store's metadata says. Some parts are archived as Objective-C objects that Strata does not
/// rebuild: fetched properties' predicates, validation rules, and default values other than
/// numbers, strings, Booleans and dates. They play no part in storage; each is listed in the
/// model's ``ManagedObjectModel/fileNotes``.
struct CoreDataModelCache {
    /// The largest cache Strata inflates: real ones are tens of kilobytes.
    static let maximumSize = 64 << 20

    private let archive: KeyedArchive
    private var notes: [String] = []
    /// Entity names by their archived object's UID.
    private var entityNames: [Int: String] = [:]

    static func model(fromDeflated data: Data) throws -> ManagedObjectModel {
        let plist: Data
        do {
            plist = try RawDeflate.inflate(data, maximumSize: maximumSize)
        } catch {
            throw CoreDataModelCache.error("the cache is not a DEFLATE stream Strata can read (\(error))")
        }
        return try model(fromArchive: plist)
    }

    static func model(fromArchive plist: Data) throws -> ManagedObjectModel {
        do {
            var reader = CoreDataModelCache(archive: try KeyedArchive(BinaryPropertyList(plist)))
            return try reader.read()
        } catch let error as BinaryPropertyList.Failure {
            throw CoreDataModelCache.error(error.description)
        } catch let error as ModelError {
            throw ModelFileError(.invalidModel, file: file, "the cached model is not sound: \(error.description)", modelError: error)
        }
    }

    static let file = URL(fileURLWithPath: "(Core Data's model cache)")

    static func error(_ message: String) -> ModelFileError {
        ModelFileError(.malformedModelCache, file: file, message)
    }

    private init(archive: KeyedArchive) {
        self.archive = archive
    }

    private mutating func read() throws -> ManagedObjectModel {
        guard let rootUID = archive.top["root"], let root = try archive.object(rootUID), root.className == "NSManagedObjectModel" else {
            throw Self.error("the archive's root is not an NSManagedObjectModel")
        }
        let entityObjects = try archive.entries(root["NSEntities"]).compactMap { try archive.object($0.value) }
        for entity in entityObjects {
            guard let name = try archive.string(entity["NSEntityName"]) else { throw Self.error("an entity has no name") }
            entityNames[entity.uid] = name
        }
        var entities = try entityObjects.map { try readEntity($0) }
        // Models built in code archive a subentity's inherited properties as copies of their own:
        // a subentity keeps only what its ancestors do not declare.
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for index in entities.indices {
            var inherited: Set<String> = []
            var parent = entities[index].superentityName
            var seen: Set<String> = []
            while let name = parent, seen.insert(name).inserted, let ancestor = byName[name] {
                inherited.formUnion(ancestor.attributes.map(\.name) + ancestor.relationships.map(\.name) + ancestor.fetchedProperties.map(\.name))
                parent = ancestor.superentityName
            }
            entities[index].attributes.removeAll { inherited.contains($0.name) }
            entities[index].relationships.removeAll { inherited.contains($0.name) }
            entities[index].fetchedProperties.removeAll { inherited.contains($0.name) }
        }
        let identifiers = try archive.elements(root["NSVersionIdentifiers"]).compactMap { try archive.string($0) }
        return try ManagedObjectModel(entities: entities, versionIdentifiers: Set(identifiers)).withFileNotes(notes)
    }

    private mutating func readEntity(_ object: KeyedArchive.Object) throws -> EntityDescription {
        let name = entityNames[object.uid] ?? ""
        var entity = EntityDescription(
            name: name, superentity: try archive.object(object["NSSuperentity"]).flatMap { entityNames[$0.uid] },
            isAbstract: object["NSIsAbstract"] == .bool(true), renamingIdentifier: try renaming(object, name),
            versionHashModifier: try archive.string(object["NSVersionHashModifier"]))
        if let className = try archive.string(object["NSClassNameForEntity"]) { entity.managedObjectClassName = className }
        for entry in try archive.entries(object["NSProperties"]) {
            guard let property = try archive.object(entry.value) else { continue }
            try read(property, into: &entity)
        }
        for index in try archive.elements(object["NSFetchIndexDescriptions"]).compactMap({ try archive.object($0) }) {
            let indexName = try archive.string(index["NSIndexName"]) ?? "index\(entity.indexes.count + 1)"
            if try archive.resolve(index["NSPartialIndexPredicate"]) != nil {
                notes.append("\(name).\(indexName): the fetch index's partial-index predicate is archived as objects, and not read")
            }
            let elements = try archive.elements(index["NSIndexElements"]).compactMap { try archive.object($0) }.map { element in
                var result = FetchIndexDescription.Element(
                    try archive.string(element["NSPropertyName"]) ?? "", ascending: element["NSAscending"] != .bool(false))
                result.isRTree = element["NSFetchIndexElementType"] == .integer(1)
                return result
            }
            entity.indexes.append(FetchIndexDescription(name: indexName, elements: elements))
        }
        // Newer archives carry fetch indexes and, for older readers, the same as compound indexes.
        for (number, compound) in try archive.elements(object["NSCompoundIndexes"]).enumerated() where entity.indexes.isEmpty {
            let names = try archive.elements(compound).map { member -> String in
                if let text = try archive.string(member) { return text }
                return try archive.object(member).flatMap { try archive.string($0["NSPropertyName"]) } ?? ""
            }
            var index = FetchIndexDescription(name: "compoundIndex\(number + 1)", elements: names.map { .init($0) })
            index.isCompoundIndex = true
            entity.indexes.append(index)
        }
        for tuple in try archive.elements(object["NSUniqueTuples"]) {
            entity.uniquenessConstraints.append(try archive.elements(tuple).map { member in
                if let text = try archive.string(member) { return text }
                guard let property = try archive.object(member), let name = try archive.string(property["NSPropertyName"]) else {
                    throw Self.error("a uniqueness constraint of \(name) names no property")
                }
                return name
            })
        }
        return entity
    }

    private mutating func read(_ property: KeyedArchive.Object, into entity: inout EntityDescription) throws {
        guard let name = try archive.string(property["NSPropertyName"]) else { throw Self.error("a property of \(entity.name) has no name") }
        let flags = Flags(property)
        let modifier = try archive.string(property["NSVersionHashModifier"])
        switch property.className {
        case "NSAttributeDescription", "NSDerivedAttributeDescription", "NSCompositeAttributeDescription":
            entity.attributes.append(try readAttribute(property, name: name, flags: flags, modifier: modifier, entity: entity.name))
        case "NSRelationshipDescription":
            var destination = try archive.string(property["_NSDestinationEntityName"])
            if destination == nil, let object = try archive.object(property["NSDestinationEntity"]) { destination = entityNames[object.uid] }
            guard let destination else { throw Self.error("relationship \(entity.name).\(name) has no destination") }
            var inverse = try archive.string(property["_NSInverseRelationshipName"])
            if inverse == nil, let object = try archive.object(property["NSInverseRelationship"]) {
                inverse = try archive.string(object["NSPropertyName"])
            }
            let maxCount = Int(integer(property["NSMaxCount"]) ?? 0)
            let isToMany = maxCount != 1
            let rules: [Int64: DeleteRule] = [0: .noAction, 1: .nullify, 2: .cascade, 3: .deny]
            entity.relationships.append(
                RelationshipDescription(
                    name: name, destination: destination, inverse: inverse, isToMany: isToMany, isOrdered: isToMany && flags.isOrdered,
                    deleteRule: rules[integer(property["NSDeleteRule"]) ?? 1] ?? .nullify, isOptional: flags.isOptional,
                    minCount: Int(integer(property["NSMinCount"]) ?? 0), maxCount: isToMany ? maxCount : 0,
                    isTransient: flags.isTransient, renamingIdentifier: try renaming(property, name), versionHashModifier: modifier))
        case "NSFetchedPropertyDescription":
            guard let destination = try archive.string(property["_NSFetchRequestEntityName"]) else {
                notes.append("\(entity.name).\(name): a fetched property whose entity the cache does not name is left out")
                return
            }
            notes.append("\(entity.name).\(name): the fetched property's predicate is archived as objects, and not read")
            entity.fetchedProperties.append(FetchedPropertyDescription(name: name, destination: destination, isOptional: flags.isOptional))
        case "_NSPropertyDescriptionProxy":
            return  // an inherited property, read on the entity that declares it
        default:
            throw Self.error("\(entity.name).\(name) is a \(property.className), which Strata does not know")
        }
    }

    private mutating func readAttribute(
        _ property: KeyedArchive.Object, name: String, flags: Flags, modifier: String?, entity: String, depth: Int = 0
    ) throws -> AttributeDescription {
        // Composites nest; a damaged archive can make one contain itself.
        guard depth < 8 else { throw Self.error("attribute \(entity).\(name): its composites nest too deep") }
        let number = integer(property["NSAttributeType"]) ?? 0
        guard let type = AttributeType.allCases.first(where: { Int64($0.coreDataNumber) == number }) else {
            throw Self.error("attribute \(entity).\(name) has the type number \(number), which Strata does not know")
        }
        var attribute = AttributeDescription(
            name: name, type: type, isOptional: flags.isOptional, isTransient: flags.isTransient,
            renamingIdentifier: try renaming(property, name), versionHashModifier: modifier)
        let storage = integer(property["NSFlagsKey"]) ?? 0
        attribute.allowsExternalBinaryDataStorage = storage & 0x4 != 0
        attribute.preservesValueInHistoryOnDeletion = storage & 0x10 != 0
        // Older Core Data archives an `indexed` property's flag itself (`NSIsIndexed`); newer
        // archives keep indexes as the entity's fetch indexes.
        attribute.isIndexed = property["NSIsIndexed"] == .bool(true)
        attribute.valueTransformerName = try archive.string(property["NSValueTransformerName"])
        attribute.attributeValueClassName = try archive.string(property["NSAttributeValueClassName"])
        if property.className == "NSDerivedAttributeDescription" {
            guard try archive.resolve(property["NSFilteringPredicate"]) == nil else {
                throw Self.error("derived attribute \(entity).\(name) has a filtering predicate, which Strata cannot read from the cache")
            }
            attribute.derivationExpression = try derivation(property["NSDerivationExpression"], place: "\(entity).\(name)")
        }
        if type == .composite {
            let elements = try archive.elements(property["NSElements"] ?? property["elements"])
            guard !elements.isEmpty else { throw Self.error("composite attribute \(entity).\(name): its elements cannot be read from the cache") }
            attribute.compositeElements = try elements.compactMap { try archive.object($0) }.map { element in
                let elementName = try archive.string(element["NSPropertyName"]) ?? ""
                return try readAttribute(
                    element, name: elementName, flags: Flags(element), modifier: try archive.string(element["NSVersionHashModifier"]),
                    entity: "\(entity).\(name)", depth: depth + 1)
            }
        }
        attribute.defaultValue = try defaultValue(property["NSDefaultValue"], type: type, place: "\(entity).\(name)")
        return attribute
    }

    /// A default value archived as a number, string, Boolean or date; anything else is noted.
    private mutating func defaultValue(_ field: KeyedArchive.Value?, type: AttributeType, place: String) throws -> AttributeValue? {
        let value: AttributeValue?
        switch try archive.resolve(field) {
        case nil: return nil
        case .integer(let number)?: value = AttributeValue.integer64(number).converted(to: type) ?? (type == .boolean ? .boolean(number != 0) : nil)
        case .bool(let flag)?: value = type == .boolean ? .boolean(flag) : AttributeValue.integer64(flag ? 1 : 0).converted(to: type)
        case .real(let number)?: value = AttributeValue.double(number).converted(to: type) ?? (type == .float ? .float(Float(number)) : nil)
        case .string(let text)?: value = type == .string ? .string(text) : nil
        case .dictionary?:
            let object = try archive.object(field)
            if object?.className == "NSDate", case .real(let seconds)? = object?["NS.time"] {
                value = .date(Date(timeIntervalSinceReferenceDate: seconds))
            } else {
                value = nil
            }
        default: value = nil
        }
        if value == nil { notes.append("\(place): its default value is archived as an object Strata does not rebuild, and is left out") }
        return value
    }

    /// A derivation expression in the form Xcode writes it: a key path, or one followed by a
    /// collection function (`pages.@count`).
    private func derivation(_ field: KeyedArchive.Value?, place: String, depth: Int = 0) throws -> String {
        // A damaged archive can make an expression its own argument.
        guard depth < 8 else { throw Self.error("derived attribute \(place): its expression nests too deep") }
        guard let expression = try archive.object(field) else { throw Self.error("derived attribute \(place) has no derivation") }
        switch expression.className {
        case "NSKeyPathExpression":
            guard let argument = try archive.elements(expression["NSArguments"]).first.flatMap({ try archive.object($0) }),
                let path = try archive.string(argument["NSKeyPath"]) ?? archive.string(argument["NSConstantValue"])
            else { throw Self.error("derived attribute \(place): its key path cannot be read") }
            return path
        case "NSFunctionExpression":
            let selector = (try archive.string(expression["NSSelectorName"]) ?? "").replacingOccurrences(of: ":", with: "")
            let functions = ["count": "count", "sum": "sum", "average": "avg", "min": "min", "max": "max"]
            guard let function = functions[selector], let argument = try archive.elements(expression["NSArguments"]).first else {
                throw Self.error("derived attribute \(place) uses the function '\(selector)', which Strata cannot read from the cache")
            }
            return try derivation(argument, place: place, depth: depth + 1) + ".@" + function
        default:
            throw Self.error("derived attribute \(place) is a \(expression.className), which Strata cannot read from the cache")
        }
    }

    /// The renaming identifier, when it is not just the name (Core Data archives one for every element).
    private func renaming(_ object: KeyedArchive.Object, _ name: String) throws -> String? {
        let identifier = try archive.string(object["NSRenamingIdentifier"])
        return identifier == name ? nil : identifier
    }

    private func integer(_ value: KeyedArchive.Value?) -> Int64? {
        if case .integer(let number)? = value { return number }
        return nil
    }

    /// A property's flags: the `_P` bit field, else the Booleans older archives write.
    struct Flags {
        var isOptional: Bool
        var isTransient: Bool
        var isOrdered: Bool

        init(_ property: KeyedArchive.Object) {
            if case .integer(let bits)? = property["_P"] {
                isOptional = bits & 0x2 != 0
                isTransient = bits & 0x8 != 0
                isOrdered = bits & 0x400 != 0
            } else {
                isOptional = property["NSIsOptional"] == .bool(true)
                isTransient = property["NSIsTransient"] == .bool(true)
                isOrdered = property["NSIsOrdered"] == .bool(true)
            }
        }
    }
}

extension ManagedObjectModel {
    /// The model Core Data cached in a SQLite store: the raw DEFLATE bytes of
    /// `Z_MODELCACHE.Z_CONTENT` (see `CoreDataModelCache`). It hashes as the store's metadata
    /// says, so the store can be opened and migrated without being handed its model.
    ///
    /// - Throws: ``ModelFileError`` with code `.malformedModelCache` for bytes that are not
    ///   such a cache, or a cached model Strata cannot rebuild; `.invalidModel` for one that is
    ///   not sound.
    public init(coreDataModelCache data: Data) throws {
        self = try CoreDataModelCache.model(fromDeflated: data)
    }
}
