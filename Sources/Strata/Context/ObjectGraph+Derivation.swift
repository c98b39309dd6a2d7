import Foundation
import Logging
import OrderedCollections

/// A derived attribute of an entity (Core Data's `NSDerivedAttributeDescription`): its slot, its
/// expression, and the relationships the expression reads through.
struct Derivation {
    let index: Int
    let attribute: AttributeDescription
    let expression: ValueExpression
    /// The relationships of the entity the expression starts a key path with.
    let relationships: Set<String>

    /// The derived attributes of `layout`'s entity; one whose expression does not parse is
    /// logged once and left out (its column keeps what the store gives it).
    static func all(of layout: EntityLayout, logger: Logger) -> [Derivation] {
        layout.attributes.enumerated().compactMap { index, attribute in
            guard let text = attribute.derivationExpression, !attribute.isTransient else { return nil }
            do {
                let expression = try ValueExpression(format: text)
                let relationships = Set(expression.rootKeys.filter { layout.slots[$0].map { if case .relationship = $0 { true } else { false } } ?? false })
                return Derivation(index: index, attribute: attribute, expression: expression, relationships: relationships)
            } catch {
                logger.error("\(layout.name).\(attribute.name): the derivation '\(text)' cannot be read, so it is not computed: \(error)")
                return nil
            }
        }
    }
}

extension ValueExpression {
    /// The first keys of the key paths that start at the evaluated object (`author` of
    /// `author.name`, `pages` of `pages.@count` and of `count:(pages)`).
    var rootKeys: Set<String> {
        switch self {
        case .key(.evaluatedObject, let key): [key]
        case .key(let base, _): base.rootKeys
        case .collectionOperator(let base, _, _): base.rootKeys
        case .function(_, let arguments), .aggregate(let arguments): arguments.reduce(into: []) { $0.formUnion($1.rootKeys) }
        case .binary(_, let lhs, let rhs): lhs.rootKeys.union(rhs.rootKeys)
        case .unary(_, let operand), .cast(let operand, _): operand.rootKeys
        case .subscripted(let base, _), .subquery(let base, _, _): base.rootKeys
        case .ternary(_, let a, let b): a.rootKeys.union(b.rootKeys)
        case .constant, .evaluatedObject, .variable, .placeholder: []
        }
    }
}

extension ObjectGraph {
    /// Computes derived attributes as Core Data does when a context saves: for every inserted
    /// or changed object of an entity with derived attributes, and for every object whose
    /// derived attribute reads through a relationship to an object that changed (a to-many's
    /// `@count` or `@sum`, a to-one's attribute). `now()` is the time of the save.
    ///
    /// On a SQLite store, an attribute a trigger keeps (Core Data's `Z_DA_…` triggers) is not
    /// written by the save: the trigger writes the same value in the database.
    func deriveAttributes() {
        guard modelHasDerivedAttributes else { return }  // most models: nothing to do, nothing copied
        let changed = Array(inserted.values) + updated.values + deleted.values
        var pending: [ObjectIdentifier: ManagedObject] = [:]
        for object in changed where !object.isDeleted && !derivations(of: object.layout).isEmpty {
            pending[ObjectIdentifier(object)] = object
        }
        // The objects whose derivations read through a relationship to a changed object: found
        // through that relationship's inverse, as it stands now.
        for object in changed {
            for inverse in derivationReaders(of: object.layout) {
                for id in object.storage.relationships[inverse].objectIDs {
                    let reader = self.object(for: id)
                    if !reader.isDeleted { pending[ObjectIdentifier(reader)] = reader }
                }
            }
        }
        for object in pending.values {
            object.willAccessValues()
            let source = ContextObjectSource(graph: self, includesPendingChanges: true)
            let evaluator = PredicateEvaluator(source: source)
            for derivation in derivations(of: object.layout) {
                do {
                    let reference = ObjectRef(id: object.objectID, row: object.storage, layout: object.layout)
                    let value = try evaluator.value(derivation.expression, on: .object(reference)).attributeValue()
                    object.setAttributeValue(value.map { $0.converted(to: derivation.attribute.type) ?? $0 }, at: derivation.index)
                } catch {
                    logger.error("\(object.objectID): \(derivation.attribute.name) cannot be derived: \(error)")
                }
            }
        }
    }

    private func derivations(of layout: EntityLayout) -> [Derivation] {
        if let cached = derivationCache[layout.name] { return cached }
        let found = Derivation.all(of: layout, logger: logger)
        derivationCache[layout.name] = found
        return found
    }

    /// The relationship slots of `layout` whose targets have a derived attribute reading back
    /// through that relationship's inverse.
    private func derivationReaders(of layout: EntityLayout) -> [Int] {
        if let cached = derivationReaderCache[layout.name] { return cached }
        var slots: [Int] = []
        for (index, relationship) in layout.relationships.enumerated() {
            guard let inverse = relationship.inverseName, let target = model.layout(for: relationship.destinationEntityName) else { continue }
            // The destination or any of its subentities may read through the inverse.
            let readers = ([target.name] + (model.entitiesByName[target.name].map { model.descendants(of: $0.name) } ?? []))
                .compactMap { model.layout(for: $0) }
            if readers.contains(where: { derivations(of: $0).contains { $0.relationships.contains(inverse) } }) { slots.append(index) }
        }
        derivationReaderCache[layout.name] = slots
        return slots
    }
}

extension ManagedObjectModel {
    /// Whether any entity has a derived attribute.
    var hasDerivedAttributes: Bool {
        entities.contains { $0.attributes.contains { $0.derivationExpression != nil } }
    }

    /// Every entity below `name`, at any depth.
    package func descendants(of name: String) -> [String] {
        entities.filter { candidate in
            var current = entitiesByName[candidate.name]?.superentityName
            while let entity = current {
                if entity == name { return true }
                current = entitiesByName[entity]?.superentityName
            }
            return false
        }.map(\.name)
    }
}
