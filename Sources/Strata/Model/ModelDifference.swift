/// What changed between two models: entities and properties added, removed or renamed, and
/// every change to a kept one that a reader (or a migration) must know about.
///
/// Entities and properties are matched as Core Data's migration matches them: a renaming
/// identifier in the new model that names the old one (or carries the same identifier)
/// marks a rename; otherwise the same name matches.
public struct ModelDifference: Sendable, Hashable {
    /// One change.
    public struct Change: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The kinds of change.
        public enum Kind: String, Sendable, Hashable, Codable {
            case entityAdded, entityRemoved, entityRenamed, parentChanged, abstractnessChanged
            case constraintsChanged, indexesChanged, versionHashChanged
            case propertyAdded, propertyRemoved, propertyRenamed, typeChanged, optionalityChanged
            case transienceChanged, defaultValueChanged, validationChanged, cardinalityChanged
            case orderingChanged, deleteRuleChanged, destinationChanged, inverseChanged
        }

        public var kind: Kind
        /// The entity, by its name in the new model (the old one for a removal).
        public var entity: String
        /// The property, by its name in the new model (the old one for a removal).
        public var property: String?
        /// What changed, in words: "String → URI".
        public var detail: String

        public var description: String {
            "\(property.map { "\(entity).\($0)" } ?? entity): \(kind.rawValue)\(detail.isEmpty ? "" : " (\(detail))")"
        }
    }

    /// Every change, entity by entity in the new model's order, removals last.
    public let changes: [Change]

    /// The entities whose version hashes differ (by name in the new model; removed ones too).
    public var entitiesWithChangedHashes: [String] {
        changes.filter { [.versionHashChanged, .entityAdded, .entityRemoved].contains($0.kind) }.map(\.entity)
    }

    /// Compares `old` with `new`.
    public init(from old: ManagedObjectModel, to new: ManagedObjectModel) {
        var changes: [Change] = []
        var matched: Set<String> = []
        for entity in new.entities {
            guard let source = Self.match(entity, in: old.entities) else {
                changes.append(Change(kind: .entityAdded, entity: entity.name, detail: ""))
                continue
            }
            matched.insert(source.name)
            changes += Self.compare(source, entity)
        }
        for entity in old.entities where !matched.contains(entity.name) {
            changes.append(Change(kind: .entityRemoved, entity: entity.name, detail: ""))
        }
        self.changes = changes
    }

    /// The element of `candidates` that `element` continues: by renaming identifier, else by name.
    static func match<T: Renamable>(_ element: T, in candidates: [T]) -> T? {
        if let identifier = element.renamingIdentifier,
            let renamed = candidates.first(where: { $0.name == identifier || $0.renamingIdentifier == identifier })
        {
            return renamed
        }
        return candidates.first { $0.name == element.name }
    }

    private static func compare(_ old: EntityDescription, _ new: EntityDescription) -> [Change] {
        var changes: [Change] = []
        func add(_ kind: Change.Kind, _ detail: String) {
            changes.append(Change(kind: kind, entity: new.name, property: nil, detail: detail))
        }
        func add(_ kind: Change.Kind, _ property: String, _ detail: String) {
            changes.append(Change(kind: kind, entity: new.name, property: property, detail: detail))
        }
        if old.name != new.name { add(.entityRenamed, "from \(old.name)") }
        if old.superentityName != new.superentityName {
            add(.parentChanged, "\(old.superentityName ?? "none") → \(new.superentityName ?? "none")")
        }
        if old.isAbstract != new.isAbstract { add(.abstractnessChanged, new.isAbstract ? "now abstract" : "no longer abstract") }
        if Set(old.uniquenessConstraints.map(Set.init)) != Set(new.uniquenessConstraints.map(Set.init)) {
            add(.constraintsChanged, "\(describe(old.uniquenessConstraints)) → \(describe(new.uniquenessConstraints))")
        }
        if old.indexes != new.indexes {
            add(.indexesChanged, "\(old.indexes.map(\.name).sorted()) → \(new.indexes.map(\.name).sorted())")
        }
        // Inherited properties count: a property that moves up or down the hierarchy is kept.
        let oldAttributes = old.inheritedAttributes + old.attributes
        let oldRelationships = old.inheritedRelationships + old.relationships
        var matchedAttributes: Set<String> = []
        for attribute in new.inheritedAttributes + new.attributes {
            guard let source = match(attribute, in: oldAttributes) else {
                add(.propertyAdded, attribute.name, "attribute, \(attribute.type.rawValue)\(attribute.isOptional ? ", optional" : "")")
                continue
            }
            matchedAttributes.insert(source.name)
            changes += compare(source, attribute, entity: new.name)
        }
        var matchedRelationships: Set<String> = []
        for relationship in new.inheritedRelationships + new.relationships {
            guard let source = match(relationship, in: oldRelationships) else {
                add(.propertyAdded, relationship.name, "relationship to \(relationship.destinationEntityName)")
                continue
            }
            matchedRelationships.insert(source.name)
            changes += compare(source, relationship, entity: new.name)
        }
        for attribute in oldAttributes where !matchedAttributes.contains(attribute.name) {
            add(.propertyRemoved, attribute.name, "attribute")
        }
        for relationship in oldRelationships where !matchedRelationships.contains(relationship.name) {
            add(.propertyRemoved, relationship.name, "relationship")
        }
        if old.versionHash != new.versionHash { add(.versionHashChanged, "") }
        return changes
    }

    private static func compare(_ old: AttributeDescription, _ new: AttributeDescription, entity: String) -> [Change] {
        var changes: [Change] = []
        func add(_ kind: Change.Kind, _ detail: String) {
            changes.append(Change(kind: kind, entity: entity, property: new.name, detail: detail))
        }
        if old.name != new.name { add(.propertyRenamed, "from \(old.name)") }
        if old.type != new.type { add(.typeChanged, "\(old.type.rawValue) → \(new.type.rawValue)") }
        if old.isOptional != new.isOptional { add(.optionalityChanged, new.isOptional ? "now optional" : "now required") }
        if old.isTransient != new.isTransient { add(.transienceChanged, new.isTransient ? "now transient" : "now stored") }
        if old.defaultValue != new.defaultValue {
            add(.defaultValueChanged, "\(describe(old.defaultValue)) → \(describe(new.defaultValue))")
        }
        if old.minimumValue != new.minimumValue || old.maximumValue != new.maximumValue || old.minimumLength != new.minimumLength
            || old.maximumLength != new.maximumLength || old.regularExpression != new.regularExpression
        {
            add(.validationChanged, "")
        }
        return changes
    }

    private static func compare(_ old: RelationshipDescription, _ new: RelationshipDescription, entity: String) -> [Change] {
        var changes: [Change] = []
        func add(_ kind: Change.Kind, _ detail: String) {
            changes.append(Change(kind: kind, entity: entity, property: new.name, detail: detail))
        }
        func cardinality(_ relationship: RelationshipDescription) -> String {
            guard relationship.isToMany else { return "to-one" }
            let bounds = relationship.minCount > 0 || relationship.maxCount > 0
                ? " [\(relationship.minCount)…\(relationship.maxCount > 0 ? String(relationship.maxCount) : "")]" : ""
            return "to-many" + bounds
        }
        if old.name != new.name { add(.propertyRenamed, "from \(old.name)") }
        if old.destinationEntityName != new.destinationEntityName {
            add(.destinationChanged, "\(old.destinationEntityName) → \(new.destinationEntityName)")
        }
        if cardinality(old) != cardinality(new) { add(.cardinalityChanged, "\(cardinality(old)) → \(cardinality(new))") }
        if old.isToMany, new.isToMany, old.isOrdered != new.isOrdered { add(.orderingChanged, new.isOrdered ? "now ordered" : "now unordered") }
        if old.isOptional != new.isOptional { add(.optionalityChanged, new.isOptional ? "now optional" : "now required") }
        if old.isTransient != new.isTransient { add(.transienceChanged, new.isTransient ? "now transient" : "now stored") }
        if old.deleteRule != new.deleteRule { add(.deleteRuleChanged, "\(old.deleteRule.rawValue) → \(new.deleteRule.rawValue)") }
        if old.inverseName != new.inverseName { add(.inverseChanged, "\(old.inverseName ?? "none") → \(new.inverseName ?? "none")") }
        return changes
    }

    private static func describe(_ value: AttributeValue?) -> String {
        guard let value else { return "none" }
        if case .string(let text) = value { return "\"\(text)\"" }
        return "\(value.anyValue)"
    }

    private static func describe(_ constraints: [[String]]) -> String {
        constraints.isEmpty ? "none" : constraints.map { "(\($0.joined(separator: ", ")))" }.joined(separator: " ")
    }
}

/// What can be renamed between model versions: entities and properties.
protocol Renamable {
    var name: String { get }
    var renamingIdentifier: String? { get }
}

extension EntityDescription: Renamable {}
extension AttributeDescription: Renamable {}
extension RelationshipDescription: Renamable {}
