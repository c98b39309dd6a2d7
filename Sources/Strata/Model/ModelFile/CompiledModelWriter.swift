import Foundation
import StrataFileFormats

/// Writes a model as momc writes a `.mom` (and Core Data archives the model a SQLite store
/// carries in `Z_MODELCACHE`): an `NSKeyedArchiver` binary property list of
/// `NSManagedObjectModel`, laid out as the fixtures' `SampleModel3.mom` is
/// (`fixtures/compiled`) and read back by `CoreDataModelCache`, the reader of both.
///
/// - `NSManagedObjectModel`: `NSEntities` (a dictionary by name), `NSVersionIdentifiers` (a
///   set), `NSFetchRequestTemplates` (`$null`: templates hold predicates archived as objects,
///   which Strata does not write).
/// - `NSEntityDescription`: `NSEntityName`, `NSClassNameForEntity`, `NSSuperentity`,
///   `NSSubentities` and `NSProperties` (dictionaries by name, the entity's own properties),
///   `NSIsAbstract`, `NSRenamingIdentifier` (the name when none), `NSVersionHashModifier`,
///   `NSUserInfo`, `NSUniqueTuples`, `NSFetchIndexDescriptions`, and `NSManagedObjectModel`.
/// - Properties: `NSPropertyName`, `NSEntity`, `NSRenamingIdentifier`, `NSVersionHashModifier`,
///   `NSIsOptional`/`NSIsTransient` when set, and `_P`, the bit field newer Core Data reads
///   first: `0x2` optional, `0x4` read-only, `0x8` transient, `0x400` ordered, over `0xF1`, the
///   bits every ordinary property of the fixtures has (what they mean is [unchecked]).
///   Attributes add `NSAttributeType` (Core Data's number), `NSAttributeValueClassName`,
///   `NSDefaultValue`, `NSValueTransformerName`, `NSFlagsKey` (`0x4` external storage, `0x10`
///   preserved in history on deletion); derived attributes are `NSDerivedAttributeDescription`s
///   with their `NSDerivationExpression`. Relationships add `NSDestinationEntity`,
///   `_NSDestinationEntityName`, `NSInverseRelationship`, `_NSInverseRelationshipName`,
///   `NSMinCount`, `NSMaxCount` (1 for a to-one), `NSDeleteRule`.
///
/// Fetched properties are written with their entity's name and no fetch request (their
/// predicate is archived as objects Strata does not write); configurations, and indexes over
/// expressions, are not written.
struct CompiledModelWriter {
    private var writer = KeyedArchiveWriter()
    private var entityUIDs: [String: Int] = [:]
    /// Property UIDs by entity and name, for inverses.
    private var propertyUIDs: [String: [String: Int]] = [:]
    private let model: ManagedObjectModel

    /// The archive of `model`.
    static func archive(_ model: ManagedObjectModel) throws -> Data {
        var writer = CompiledModelWriter(model: model)
        return try writer.write()
    }

    private init(model: ManagedObjectModel) {
        self.model = model
    }

    private mutating func write() throws -> Data {
        let root = writer.reserve()
        // Every entity and property gets its place first: they refer to one another.
        for entity in model.entities {
            entityUIDs[entity.name] = writer.reserve()
            for name in entity.attributes.map(\.name) + entity.relationships.map(\.name) + entity.fetchedProperties.map(\.name) {
                propertyUIDs[entity.name, default: [:]][name] = writer.reserve()
            }
        }
        let entities = try dictionary(model.entities.map { ($0.name, entityUIDs[$0.name] ?? 0) }, mutable: true)
        for entity in model.entities { try writeEntity(entity, root: root) }
        let identifiers = try set(model.versionIdentifiers.sorted())
        _ = writer.finish(
            root, "NSManagedObjectModel",
            fields: [("NSEntities", .uid(entities)), ("NSFetchRequestTemplates", .uid(0)), ("NSVersionIdentifiers", .uid(identifiers))])
        return writer.archive(root: root)
    }

    private mutating func writeEntity(_ entity: EntityDescription, root: Int) throws {
        guard let uid = entityUIDs[entity.name] else { return }
        let subentities = model.entities.filter { $0.superentityName == entity.name }.map { ($0.name, entityUIDs[$0.name] ?? 0) }
        var properties: [(String, Int)] = []
        for attribute in entity.attributes { properties.append((attribute.name, try writeAttribute(attribute, of: entity))) }
        for relationship in entity.relationships { properties.append((relationship.name, try writeRelationship(relationship, of: entity))) }
        for fetched in entity.fetchedProperties { properties.append((fetched.name, try writeFetched(fetched, of: entity))) }
        var fields: [(String, PropertyListNode)] = [
            ("NSEntityName", .uid(try string(entity.name))),
            ("NSClassNameForEntity", .uid(try string(Self.className(entity)))),
            ("NSUserInfo", .uid(try stringDictionary(entity.userInfo))),
            ("NSSubentities", .uid(try dictionary(subentities, mutable: true))),
            ("NSVersionHashModifier", .uid(try optionalString(entity.versionHashModifier))),
            ("NSProperties", .uid(try dictionary(properties, mutable: true))),
            ("NSRenamingIdentifier", .uid(try string(entity.renamingIdentifier ?? entity.name))),
            ("NSManagedObjectModel", .uid(root)),
            ("NSSuperentity", .uid(entity.superentityName.flatMap { entityUIDs[$0] } ?? 0)),
        ]
        if entity.isAbstract { fields.append(("NSIsAbstract", .bool(true))) }
        if !entity.uniquenessConstraints.isEmpty {
            let tuples = try entity.uniquenessConstraints.map { try array($0.map { try string($0) }, mutable: true) }
            fields.append(("NSUniqueTuples", .uid(try array(tuples, mutable: true))))
        }
        // An index over an expression is left out: how Core Data archives one is [unchecked], and
        // indexes take no part in version hashes.
        let indexes = entity.indexes.filter { index in index.elements.allSatisfy { $0.expression == nil && !$0.propertyName.isEmpty } }
        if !indexes.isEmpty {
            fields.append(("NSFetchIndexDescriptions", .uid(try array(try indexes.map { try writeIndex($0, entity: uid) }, mutable: true))))
        }
        _ = writer.finish(uid, "NSEntityDescription", fields: fields)
    }

    private mutating func writeIndex(_ index: FetchIndexDescription, entity: Int) throws -> Int {
        let uid = writer.reserve()
        let elements = try index.elements.map { element -> Int in
            let elementUID = writer.reserve()
            return writer.finish(
                elementUID, "NSFetchIndexElementDescription",
                fields: [
                    ("NSPropertyName", .uid(try string(element.propertyName))), ("NSAscending", .bool(element.isAscending)),
                    ("NSFetchIndexElementType", .integer(element.isRTree ? 1 : 0)), ("NSFetchIndexDescription", .uid(uid)),
                ])
        }
        return writer.finish(
            uid, "NSFetchIndexDescription",
            fields: [("NSIndexName", .uid(try string(index.name))), ("NSIndexElements", .uid(try array(elements, mutable: true))), ("NSEntity", .uid(entity))])
    }

    /// The fields every property has.
    private mutating func common(
        name: String, entity: EntityDescription, renaming: String?, modifier: String?, isOptional: Bool, isTransient: Bool,
        isReadOnly: Bool = false, isOrdered: Bool = false
    ) throws -> [(String, PropertyListNode)] {
        var bits: Int64 = 0xF1
        if isOptional { bits |= 0x2 }
        if isReadOnly { bits |= 0x4 }
        if isTransient { bits |= 0x8 }
        if isOrdered { bits |= 0x400 }
        var fields: [(String, PropertyListNode)] = [
            ("_P", .integer(bits)), ("NSPropertyName", .uid(try string(name))), ("NSEntity", .uid(entityUIDs[entity.name] ?? 0)),
            ("NSRenamingIdentifier", .uid(try string(renaming ?? name))),
        ]
        if let modifier { fields.append(("NSVersionHashModifier", .uid(try string(modifier)))) }
        if isOptional { fields.append(("NSIsOptional", .bool(true))) }
        if isTransient { fields.append(("NSIsTransient", .bool(true))) }
        return fields
    }

    private mutating func writeAttribute(_ attribute: AttributeDescription, of entity: EntityDescription, uid given: Int? = nil) throws -> Int {
        let uid = given ?? propertyUIDs[entity.name]?[attribute.name] ?? writer.reserve()
        var fields = try common(
            name: attribute.name, entity: entity, renaming: attribute.renamingIdentifier, modifier: attribute.versionHashModifier,
            isOptional: attribute.isOptional, isTransient: attribute.isTransient, isReadOnly: attribute.derivationExpression != nil)
        var storage: Int64 = 0
        if attribute.allowsExternalBinaryDataStorage { storage |= 0x4 }
        if attribute.preservesValueInHistoryOnDeletion { storage |= 0x10 }
        fields += [
            ("NSAttributeType", .integer(Int64(attribute.type.coreDataNumber))),
            ("NSAttributeValueClassName", .uid(try optionalString(attribute.attributeValueClassName ?? Self.valueClassName(attribute.type)))),
            ("NSDefaultValue", .uid(try defaultValue(attribute.defaultValue))),
            ("NSValueTransformerName", .uid(try optionalString(attribute.valueTransformerName))),
            ("NSFlagsKey", .integer(storage)),
        ]
        var className = "NSAttributeDescription"
        if let derivation = attribute.derivationExpression {
            className = "NSDerivedAttributeDescription"
            fields.append(("NSDerivationExpression", .uid(try ArchivedExpression.add(Self.derivation(derivation), to: &writer))))
        }
        if attribute.type == .composite {
            className = "NSCompositeAttributeDescription"
            let elements = try attribute.compositeElements.map { try writeAttribute($0, of: entity, uid: writer.reserve()) }
            fields.append(("NSElements", .uid(try array(elements, mutable: false))))
        }
        return writer.finish(uid, className, fields: fields)
    }

    private mutating func writeRelationship(_ relationship: RelationshipDescription, of entity: EntityDescription) throws -> Int {
        let uid = propertyUIDs[entity.name]?[relationship.name] ?? writer.reserve()
        var fields = try common(
            name: relationship.name, entity: entity, renaming: relationship.renamingIdentifier, modifier: relationship.versionHashModifier,
            isOptional: relationship.isOptional, isTransient: relationship.isTransient, isOrdered: relationship.isToMany && relationship.isOrdered)
        let rules: [DeleteRule: Int64] = [.noAction: 0, .nullify: 1, .cascade: 2, .deny: 3]
        let inverse = relationship.inverseName.flatMap { propertyUIDs[relationship.destinationEntityName]?[$0] ?? inheritedUID($0, of: relationship.destinationEntityName) }
        fields += [
            ("NSDestinationEntity", .uid(entityUIDs[relationship.destinationEntityName] ?? 0)),
            ("_NSDestinationEntityName", .uid(try string(relationship.destinationEntityName))),
            ("NSInverseRelationship", .uid(inverse ?? 0)),
            ("_NSInverseRelationshipName", .uid(try optionalString(relationship.inverseName))),
            ("NSMinCount", .integer(Int64(relationship.minCount))),
            ("NSMaxCount", .integer(relationship.isToMany ? Int64(relationship.maxCount) : 1)),
            ("NSDeleteRule", .integer(rules[relationship.deleteRule] ?? 1)),
        ]
        return writer.finish(uid, "NSRelationshipDescription", fields: fields)
    }

    private mutating func writeFetched(_ fetched: FetchedPropertyDescription, of entity: EntityDescription) throws -> Int {
        let uid = propertyUIDs[entity.name]?[fetched.name] ?? writer.reserve()
        var fields = try common(name: fetched.name, entity: entity, renaming: nil, modifier: nil, isOptional: fetched.isOptional, isTransient: true)
        fields.append(("_NSFetchRequestEntityName", .uid(try string(fetched.destinationEntityName))))
        return writer.finish(uid, "NSFetchedPropertyDescription", fields: fields)
    }

    /// A property an entity inherits: the ancestor's that declares it.
    private func inheritedUID(_ name: String, of entityName: String) -> Int? {
        var current = model.entity(named: entityName)?.superentityName
        var seen: Set<String> = []
        while let ancestor = current, seen.insert(ancestor).inserted {
            if let uid = propertyUIDs[ancestor]?[name] { return uid }
            current = model.entity(named: ancestor)?.superentityName
        }
        return nil
    }

    /// The class Core Data makes the entity's objects of: `NSManagedObject` for Strata's own.
    static func className(_ entity: EntityDescription) -> String {
        ["", "ManagedObject"].contains(entity.managedObjectClassName) ? "NSManagedObject" : entity.managedObjectClassName
    }

    /// The Objective-C class of an attribute type's values, as Xcode names it.
    static func valueClassName(_ type: AttributeType) -> String? {
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .boolean: "NSNumber"
        case .decimal: "NSDecimalNumber"
        case .string: "NSString"
        case .date: "NSDate"
        case .binaryData: "NSData"
        case .uuid: "NSUUID"
        case .uri: "NSURL"
        case .objectID: "NSManagedObjectID"
        case .transformable, .composite, .undefined: nil
        }
    }

    /// A derivation in Xcode's form (`pages.@count`, `author.name`, `now()`) as the expression
    /// Core Data archives: a key path, or a collection function of one.
    static func derivation(_ text: String) throws -> ValueExpression {
        let functions = ["count": "count:", "sum": "sum:", "avg": "average:", "min": "min:", "max": "max:"]
        let parts = text.split(separator: ".").map(String.init)
        if let last = parts.last, last.hasPrefix("@"), let function = functions[String(last.dropFirst())], parts.count > 1 {
            return .function(function, [ValueExpression.keyPath(parts.dropLast().joined(separator: "."))])
        }
        return try ValueExpression(format: text)
    }

    // MARK: Values

    private mutating func string(_ text: String) throws -> Int { try writer.add(.string(text)) }

    private mutating func optionalString(_ text: String?) throws -> Int { try text.map { try string($0) } ?? 0 }

    private mutating func defaultValue(_ value: AttributeValue?) throws -> Int {
        switch value {
        case nil: return 0
        case .integer16(let v): return try writer.add(.integer(Int64(v)))
        case .integer32(let v): return try writer.add(.integer(Int64(v)))
        case .integer64(let v): return try writer.add(.integer(v))
        case .double(let v): return try writer.add(.double(v))
        case .float(let v): return try writer.add(.double(Double(v)))
        case .decimal(let v): return try writer.add(.decimal(v))
        case .string(let v): return try writer.add(.string(v))
        case .boolean(let v): return try writer.add(.boolean(v))
        case .date(let v): return try writer.add(.date(v))
        case .binaryData(let v): return try writer.add(.data(v))
        case .uuid(let v): return try writer.add(.uuid(v))
        case .uri(let v): return try writer.add(.url(v))
        case .transformable, .objectID, .externalDataReference: return 0
        }
    }

    private mutating func stringDictionary(_ entries: [String: String]) throws -> Int {
        try dictionary(try entries.sorted { $0.key < $1.key }.map { ($0.key, try string($0.value)) }, mutable: false)
    }

    private mutating func dictionary(_ entries: [(String, Int)], mutable: Bool) throws -> Int {
        let uid = writer.reserve()
        let keys = try entries.map { try string($0.0) }
        return writer.finish(
            uid, mutable ? "NSMutableDictionary" : "NSDictionary",
            fields: [("NS.keys", .array(keys.map { .uid($0) })), ("NS.objects", .array(entries.map { .uid($0.1) }))])
    }

    private mutating func array(_ items: [Int], mutable: Bool) throws -> Int {
        writer.finish(writer.reserve(), mutable ? "NSMutableArray" : "NSArray", fields: [("NS.objects", .array(items.map { .uid($0) }))])
    }

    private mutating func set(_ items: [String]) throws -> Int {
        let uid = writer.reserve()
        let members = try items.map { try string($0) }
        return writer.finish(uid, "NSSet", fields: [("NS.objects", .array(members.map { .uid($0) }))])
    }
}
