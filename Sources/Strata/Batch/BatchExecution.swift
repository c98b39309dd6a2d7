import Foundation
import OrderedCollections

/// Runs batch requests: reads the objects concerned as rows from the latest generation (a
/// graph of its own, which makes no managed object), makes the change set, and commits it as
/// one save through the coordinator, so that every store type, optimistic locking, delete
/// rules and persistent history work as for any save. A save that meets another one's change
/// to the same objects reads them again and tries again, a few times.
///
/// The change set carries no saving context, so no context hears of it but by merging, as
/// in Core Data; it carries the executing context's author and name, which history records.
struct BatchExecution {
    let coordinator: PersistentStoreCoordinator
    let author: String?
    let contextName: String?
    private static let attempts = 5

    var model: ManagedObjectModel { coordinator.managedObjectModel }

    // MARK: Insert

    func insert(_ request: BatchInsertRequest) throws -> BatchResult {
        guard let layout = model.layout(for: request.entityName) else {
            throw PersistenceError(.unknownEntity, "the model has no entity named '\(request.entityName)'")
        }
        guard !layout.entity.isAbstract else {
            throw ValidationError(.wrongType, entity: layout.name, "\(layout.name) is abstract: a batch insert needs a concrete entity")
        }
        var rows: [Row] = []
        switch request.source {
        case .objects(let objects):
            rows = try objects.enumerated().map { try row(from: $1, number: $0, layout: layout) }
        case .handler(let handler):
            while true {
                var dictionary: [String: any Sendable] = [:]
                if handler(&dictionary) { break }
                rows.append(try row(from: dictionary, number: rows.count, layout: layout))
            }        case .objectHandler(let handler):
            rows = try filledRows(layout, handler)
        }
        guard !rows.isEmpty else { return result(request.resultType, []) }
        let made = rows
        if let ids = try coordinator.batchInStore({ try $0.batchInsert(made, layout: layout, author: author, contextName: contextName) }) {
            return result(request.resultType, ids)
        }
        let temporary = rows.map { _ in ManagedObjectID.temporary(in: .make(store: nil, entityName: layout.name)) }
        let ids = try coordinator.obtainPermanentIDs(for: temporary)
        var changes = newChangeSet()
        changes.inserted.reserveCapacity(rows.count)
        for (id, row) in zip(ids, rows) { changes.inserted[id] = row }
        _ = try coordinator.commitSynchronously(changes)
        return result(request.resultType, ids)
    }

    /// The rows of the objects `handler` fills, made in a context of their own (which inserts them
    /// with their defaults, and never saves) and let go a thousand at a time.
    private func filledRows(_ layout: EntityLayout, _ handler: @escaping BatchInsertRequest.ObjectHandler) throws -> [Row] {
        let scratch = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        return try scratch.performAndWait { context in
            var rows: [Row] = []
            while true {
                let object = try context.insertNewObject(forEntityName: layout.name)
                if handler(object) { break }
                var row = object.storage
                row.version = 0
                for (slot, relationship) in layout.relationships.enumerated() {
                    row.relationships[slot] = relationship.isToMany ? .toMany([]) : .toOne(nil)
                }
                try checkRequired(row, number: rows.count, layout: layout)
                rows.append(row)
                if rows.count % 1_000 == 0 { context.reset() }
            }
            context.reset()
            return rows
        }
    }

    /// A new row of `layout` with a dictionary's values over the defaults.
    private func row(from dictionary: [String: any Sendable], number: Int, layout: EntityLayout) throws -> Row {
        var row = Row(emptyFor: layout)
        row.version = 0
        for (key, value) in dictionary {
            guard case .attribute(let slot)? = layout.slots[key], !layout.attributes[slot].isTransient else {
                throw ValidationError(
                    .unknownKey, entity: layout.name, key: key,
                    "object \(number) of a batch insert: \(layout.name) has no stored attribute '\(key)' (a batch insert sets attributes only)")
            }
            row.attributes[slot] = try Self.convert(value, to: layout.attributes[slot], entity: layout.name, place: "object \(number)")
        }
        try checkRequired(row, number: number, layout: layout)
        return row
    }

    /// Refuses a row without a value for a required attribute.
    private func checkRequired(_ row: Row, number: Int, layout: EntityLayout) throws {
        for (slot, attribute) in layout.attributes.enumerated()
        where !attribute.isTransient && !attribute.isOptional && attribute.derivationExpression == nil && row.attributes[slot] == nil {
            throw ValidationError(
                .missingValue, entity: layout.name, key: attribute.name,
                "object \(number) of a batch insert has no value for the required attribute '\(attribute.name)', which has no default")
        }
    }

    // MARK: Update

    func update(_ request: BatchUpdateRequest) throws -> BatchResult {
        guard let layout = model.layout(for: request.entityName) else {
            throw PersistenceError(.unknownEntity, "the model has no entity named '\(request.entityName)'")
        }
        for (key, value) in request.propertiesToUpdate {
            guard case .attribute(let slot)? = layout.slots[key], !layout.attributes[slot].isTransient else {
                throw ValidationError(
                    .unknownKey, entity: layout.name, key: key, "a batch update sets stored attributes only; \(layout.name) has no '\(key)'")
            }
            if case .expression(let expression) = value { _ = try expression.check(on: layout, model: model, variables: [:]) }
        }
        let names = request.includesSubentities ? layout.hierarchyNames : [layout.name]
        if let ids = try coordinator.batchInStore({ try $0.batchUpdate(request, names: names, author: author, contextName: contextName) }) {
            return result(request.resultType, ids)
        }
        return try retrying { graph in
            var fetch = FetchRequest<ManagedObject>(entityName: request.entityName)
            fetch.predicate = request.predicate
            fetch.includesSubentities = request.includesSubentities
            let evaluator = PredicateEvaluator(source: ContextObjectSource(graph: graph, includesPendingChanges: false))
            var changes = newChangeSet()
            for ref in try graph.matches(for: fetch, sorted: false) {
                let before = ref.stored.row
                var row = before
                for (key, value) in request.propertiesToUpdate {
                    guard case .attribute(let slot)? = ref.layout.slots[key] else { continue }
                    let attribute = ref.layout.attributes[slot]
                    switch value {
                    case .constant(let constant):
                        row.attributes[slot] = try constant.flatMap { try Self.convert($0, to: attribute, entity: ref.layout.name, place: "\(ref.id)") }
                    case .expression(let expression):
                        let computed = try evaluator.value(expression, on: .object(ref)).sendable
                        row.attributes[slot] = try computed.flatMap { try Self.convert($0, to: attribute, entity: ref.layout.name, place: "\(ref.id)") }
                    }
                }
                guard row != before else { continue }
                changes.updated[ref.id] = row
                changes.committed[ref.id] = before
            }
            return changes
        } result: { changes in
            result(request.resultType, Array(changes.updated.keys))
        }
    }

    // MARK: Delete

    func delete(_ request: BatchDeleteRequest) throws -> BatchResult {
        if let ids = request.objectIDs {
            guard Set(ids.map(\.entityName)).count <= 1 else {
                throw PersistenceError(.unknownEntity, objectIDs: ids, "a batch delete by IDs takes objects of one entity")
            }
        } else {
            guard let layout = model.layout(for: request.entityName) else {
                throw PersistenceError(.unknownEntity, "the model has no entity named '\(request.entityName)'")
            }
            let names = request.includesSubentities ? layout.hierarchyNames : [layout.name]
            if let ids = try coordinator.batchInStore({ try $0.batchDelete(request, names: names, author: author, contextName: contextName) }) {
                return result(request.resultType, ids)
            }
        }
        return try retrying { graph in
            var targets: [ManagedObjectID] = []
            if let ids = request.objectIDs {
                targets = ids.filter { graph.storedRow(for: $0) != nil }
            } else {
                var fetch = FetchRequest<ManagedObject>(entityName: request.entityName)
                fetch.predicate = request.predicate
                fetch.includesSubentities = request.includesSubentities
                targets = try graph.matches(for: fetch, sorted: false).map(\.id)
            }
            return try deletion(of: targets, in: graph)
        } result: { changes in
            result(request.resultType, Array(changes.deleted.keys))
        }
    }

    /// The change set that deletes `ids` with their delete rules applied, on rows.
    private func deletion(of ids: [ManagedObjectID], in graph: ObjectGraph) throws -> ChangeSet {
        var deleted: [ManagedObjectID: Row] = [:]
        var queue = ids
        // Cascades first: the whole set of deleted objects decides what nullify and deny see.
        while let id = queue.popLast() {
            guard deleted[id] == nil, let row = graph.storedRow(for: id), let layout = model.layout(for: id.entityName) else { continue }
            deleted[id] = row
            for (slot, relationship) in layout.relationships.enumerated() where relationship.deleteRule == .cascade {
                queue += row.relationships[slot].objectIDs
            }
        }
        var updated: [ManagedObjectID: (before: Row, after: Row)] = [:]
        for (id, row) in deleted {
            guard let layout = model.layout(for: id.entityName) else { continue }
            for (slot, relationship) in layout.relationships.enumerated() {
                let others = row.relationships[slot].objectIDs.filter { deleted[$0] == nil }
                guard !others.isEmpty else { continue }
                switch relationship.deleteRule {
                case .deny:
                    throw ValidationError(
                        .deleteDenied, entity: layout.name, key: relationship.name, objectID: id,
                        "\(id) cannot be deleted: its '\(relationship.name)' holds \(others.count) object(s) that are not deleted (deny rule); nothing was deleted")
                case .nullify:
                    guard let inverse = layout.inverseSlots[slot] else { continue }
                    for other in others {
                        guard let otherLayout = model.layout(for: other.entityName),
                            var entry = updated[other] ?? graph.storedRow(for: other).map({ ($0, $0) })
                        else { continue }
                        let inverseDescription = otherLayout.relationships[inverse]
                        switch entry.after.relationships[inverse].read {
                        case .one(let target) where target == id:
                            guard inverseDescription.isOptional else {
                                throw ValidationError(
                                    .missingValue, entity: otherLayout.name, key: inverseDescription.name, objectID: other,
                                    "deleting \(id) would leave the required '\(inverseDescription.name)' of \(other) empty (nullify rule); nothing was deleted")
                            }
                            entry.after.relationships[inverse] = .toOne(nil)
                        case .many(var targets):
                            targets.remove(id)
                            entry.after.relationships[inverse] = .toMany(targets)
                        default:
                            break
                        }
                        updated[other] = entry
                    }
                case .cascade, .noAction:
                    break
                }
            }
        }
        var changes = newChangeSet()
        for (id, row) in deleted { changes.deleted[id] = row.version }
        for (id, entry) in updated where entry.after != entry.before {
            changes.updated[id] = entry.after
            changes.committed[id] = entry.before
        }
        return changes
    }

    // MARK: Helpers

    /// Makes a change set from the latest generation and commits it; on a conflict (another
    /// save changed those objects meanwhile), reads them again and tries again.
    private func retrying(_ make: (ObjectGraph) throws -> ChangeSet, result: (ChangeSet) -> BatchResult) throws -> BatchResult {
        var attempt = 0
        while true {
            attempt += 1
            let graph = ObjectGraph(coordinator: coordinator)
            graph.generation = coordinator.latestGeneration()
            let changes = try make(graph)
            guard !changes.isEmpty else { return result(changes) }
            do {
                _ = try coordinator.commitSynchronously(changes)
                return result(changes)
            } catch let error as PersistenceError where error.code == .conflict && attempt < Self.attempts {
                continue
            }
        }
    }

    private func newChangeSet() -> ChangeSet {
        var changes = ChangeSet()
        changes.author = author
        changes.contextName = contextName
        return changes
    }

    private func result(_ type: BatchResultType, _ ids: [ManagedObjectID]) -> BatchResult {
        switch type {
        case .statusOnly: .status(true)
        case .count: .count(ids.count)
        case .objectIDs: .objectIDs(ids)
        }
    }

    /// A value given for an attribute, as the attribute's type; `nil` for a nil value.
    ///
    /// `place` names the object in the error, made only when there is one: a batch insert
    /// converts a value per attribute per object, and interpolating its place every time was a
    /// tenth of its work.
    static func convert(
        _ value: any Sendable, to attribute: AttributeDescription, entity: String, place: @autoclosure () -> String
    ) throws -> AttributeValue? {
        // Converted first: a nil is rare, and telling one costs a cast per value.
        if let converted = AttributeValue.make(from: value, as: attribute.type) { return converted }
        if let optional = value as? any NilTestable, optional.isNil { return nil }
        throw ValidationError(
            .wrongType, entity: entity, key: attribute.name,
            "\(place()): \(type(of: value)) is not a value for the \(attribute.type.rawValue) attribute '\(attribute.name)'")
    }
}

/// An `Optional`, whatever it wraps: how a nil in a dictionary of `any Sendable` is told.
private protocol NilTestable {
    var isNil: Bool { get }
}

extension Optional: NilTestable {
    var isNil: Bool { self == nil }
}
