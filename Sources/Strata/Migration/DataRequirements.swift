import Foundation

/// What a migration's objects must hold that the source model did not promise: the values a
/// step makes required (`formats/coredata-lightweight-migration.md` §3 and §5).
///
/// Core Data infers such steps and lets the data decide: an object that lacks a newly required
/// value fails the migration, which leaves the store as it was. Strata does the same and names
/// every such object. A required attribute with a default never fails: its empty values take
/// the default as they are mapped. With `fillsMissingValues` (`strata migrate --fill-defaults`),
/// a missing attribute value takes its type's zero value instead of failing; a relationship
/// has no such value, and still fails.
struct DataRequirements {
    /// One destination property that every object must have.
    struct Requirement {
        enum Slot {
            case attribute(Int, AttributeDescription)
            case relationship(Int)
        }
        let slot: Slot
        /// "Entity.property".
        let place: String
        /// The rule broken, for the error: what changed, and the section of the page.
        let rule: String
    }

    /// Destination entity → what its objects must hold.
    private var requirements: [String: [Requirement]] = [:]

    init(mapping: MappingModel, source: ManagedObjectModel, destination: ManagedObjectModel) {
        // A new entity has no objects to check: only ones that carry over from the source.
        for entityMapping in mapping.entityMappings where entityMapping.sourceEntityName != nil {
            guard let name = entityMapping.destinationEntityName, let layout = destination.layout(for: name) else { continue }
            let sourceEntity = entityMapping.sourceEntityName.flatMap { source.entity(named: $0) }
            var list: [Requirement] = []
            for (index, attribute) in layout.attributes.enumerated()
            where !attribute.isTransient && !attribute.isOptional && attribute.defaultValue == nil {
                let origin = Self.sourceKey(of: attribute.name, in: entityMapping.attributeMappings)
                    .flatMap { sourceEntity?.attributesByName[$0] }
                if let origin, !origin.isOptional, !origin.isTransient { continue }  // the source promised it
                let rule = origin == nil
                    ? "a new required attribute without a default value has no value (§3: new, required, no default)"
                    : "it becomes required, has no default value, and has no value here (§3: optional → required, no default)"
                list.append(Requirement(slot: .attribute(index, attribute), place: "\(name).\(attribute.name)", rule: rule))
            }
            for (index, relationship) in layout.relationships.enumerated() where !relationship.isTransient && relationship.isMandatory {
                let origin = Self.sourceKey(of: relationship.name, in: entityMapping.relationshipMappings)
                    .flatMap { sourceEntity?.relationshipsByName[$0] }
                if let origin, origin.isMandatory, !origin.isTransient { continue }
                let what = relationship.isToMany ? "holds no object" : "is empty"
                let rule = origin == nil
                    ? "a new required relationship \(what) (§5: new, mandatory)"
                    : "it becomes required and \(what) here (§5: becomes mandatory)"
                list.append(Requirement(slot: .relationship(index), place: "\(name).\(relationship.name)", rule: rule))
            }
            if !list.isEmpty { requirements[name, default: []] += list }
        }
    }

    private static func sourceKey(of name: String, in mappings: [PropertyMapping]) -> String? {
        guard let mapping = mappings.first(where: { $0.name == name }), case .sourceKey(let key) = mapping.value else { return nil }
        return key
    }

    var isEmpty: Bool { requirements.isEmpty }

    /// What the objects of the destination entity `entity` must hold.
    func requirements(for entity: String) -> [Requirement] { requirements[entity] ?? [] }

    /// Every requirement as "Entity.property: rule", sorted.
    var descriptions: [String] {
        requirements.values.flatMap { $0.map { "\($0.place): \($0.rule)" } }.sorted()
    }

    /// Checks one mapped object of `entity`: fills what may be filled (counting it in `filled`
    /// by "Entity.attribute") and returns the rules it breaks.
    func check(_ row: inout Row, entity: String, fillingMissingValues: Bool, filled: inout [String: Int]) -> [Requirement] {
        guard let list = requirements[entity] else { return [] }
        var broken: [Requirement] = []
        for requirement in list {
            switch requirement.slot {
            case .attribute(let index, let attribute):
                guard row.attributes[index] == nil else { continue }
                if fillingMissingValues, let zero = Self.zero(of: attribute) {
                    row.attributes[index] = zero
                    filled[requirement.place, default: 0] += 1
                } else {
                    broken.append(requirement)
                }
            case .relationship(let index):
                if row.relationships[index].objectIDs.isEmpty { broken.append(requirement) }
            }
        }
        return broken
    }

    /// The value `--fill-defaults` gives a missing value: the attribute's default, else its
    /// type's zero (0, false, "", empty data, the reference date); none for a UUID, a URI, an
    /// object ID, a transformable or a composite, which have no neutral value.
    static func zero(of attribute: AttributeDescription) -> AttributeValue? {
        if let value = attribute.defaultValue { return value }
        // A migration writes what it fills into the store for good: not the nil UUID or an
        // empty transformable, which would stand for values no one gave.
        guard attribute.type != .uuid, attribute.type != .transformable else { return nil }
        return AttributeValue.zero(of: attribute.type)
    }
}

extension MappingModel {
    /// What a migration with this mapping checks in every object: the values the step makes
    /// required that the source did not promise, as "Entity.property: the rule" (an object that
    /// lacks one fails the migration; see ``MigrationManager/fillsMissingValues``). Empty when
    /// the step needs no value the source may lack: then no store's data can make it fail.
    public func requiredValueChecks(from source: ManagedObjectModel, to destination: ManagedObjectModel) -> [String] {
        DataRequirements(mapping: self, source: source, destination: destination).descriptions
    }
}
