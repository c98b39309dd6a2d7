import Foundation

/// One migration step applied to rows, whichever store they come from and go to: each source
/// chunk mapped by the step's mapping (a ``RowMapper`` for copies and renames,
/// ``MigrationObject``s and policies for custom work), checked against what the step makes
/// required, then the objects custom code inserted. ``MigrationManager`` drives it over a binary
/// store's chunks; a SQLite store's copy-based migration over its tables.
final class RowMigration {
    let manager: MigrationManager
    let mapping: MappingModel
    /// The store's UUID, which every object ID of the store carries.
    let store: String
    let session: MigrationSession
    private let total: Int?
    private let renames: [String: String]
    private let requirements: DataRequirements
    private var mappers: [String: RowMapper?] = [:]
    private var failures = FailureList(limit: MigrationManager.listedFailures)
    private var filled: [String: Int] = [:]
    private var done = 0

    /// - Parameter nextReferences: Destination hierarchy root → the next reference number, for
    ///   objects custom code inserts.
    init(manager: MigrationManager, mapping: MappingModel, store: String, nextReferences: [String: Int64], total: Int?) throws {
        self.manager = manager
        self.mapping = mapping
        self.store = store
        self.total = total
        renames = mapping.entityRenames
        requirements = DataRequirements(mapping: mapping, source: manager.sourceModel, destination: manager.destinationModel)
        session = MigrationSession(
            source: manager.sourceModel, destination: manager.destinationModel, mapping: mapping, storeIdentifier: store,
            nextReferences: nextReferences)
        let unresolved = mapping.entityMappings.filter { $0.policy == nil && $0.policyClassName != nil }
        guard unresolved.isEmpty else {
            throw MigrationError(
                .invalidMapping, "the step \(manager.stageName) needs policies this program has not registered",
                problems: unresolved.map { "\($0.name): \($0.policyClassName ?? ""): \(MigrationPolicyRegistry.advice(for: $0.policyClassName ?? ""))" })
        }
        for entityMapping in mapping.entityMappings {
            try entityMapping.policy?.beginEntityMapping(entityMapping, in: session)
        }
    }

    /// The destination rows of one chunk of a source entity's rows, by destination entity. A
    /// value that does not fit, or an object lacking what the step makes required, is listed and
    /// left out: ``finish()`` then fails the step, naming every one.
    func map(_ entity: StoreSchema.Entity, _ rows: [(Int64, Row)], progress: (MigrationProgress) -> Void) throws -> [(String, [(Int64, Row)])] {
        defer {
            done += rows.count
            progress(MigrationProgress(stage: manager.stageName, entity: entity.name, objectsDone: done, totalObjects: total))
        }
        let destinationModel = manager.destinationModel
        let entityMappings = mapping.entityMappings.filter { $0.sourceEntityName == entity.name && $0.kind != .remove }
        for further in entityMappings.dropFirst() { try mapFurther(further, entity, rows) }
        guard let entityMapping = entityMappings.first, let destinationName = entityMapping.destinationEntityName,
            let layout = destinationModel.layout(for: destinationName)
        else { return [] }
        if mappers[entity.name] == nil {
            mappers[entity.name] = RowMapper(mapping: entityMapping, source: entity, destination: layout, renames: renames, store: store)
        }
        var mapped: [(Int64, Row)] = []
        for (reference, row) in rows {
            // A value that does not fit is listed with the others, and the migration fails at the end.
            do {
                if let mapper = mappers[entity.name] ?? nil {
                    mapped.append((reference, try mapper.map(row, reference: reference)))
                    continue
                }
                let source = MigrationObject(row: row, reference: reference, entity: entity, store: store)
                guard let destination = try destination(for: source, through: entityMapping), let number = destination.objectID.referenceNumber
                else { continue }
                guard destination.entityName == destinationName else {
                    throw MigrationError(.invalidMapping, "the mapping \(entityMapping.name) made a \(destination.entityName) object")
                }
                mapped.append((number, try destination.row(for: layout, version: row.version)))
            } catch let error as MigrationError where error.code == .dataLoss {
                failures.append(lost: error.message)
            }
        }
        return [(destinationName, checked(mapped, entity: destinationName))]
    }

    /// A source entity's objects through a mapping after its first (Core Data's mapping models
    /// may split an entity: `EmployeeToEmployee` and `EmployeeToCompany`): the first mapping's
    /// objects keep the source's reference numbers, so these get new ones, and are written with
    /// the objects custom code inserts (``finish()``).
    private func mapFurther(_ entityMapping: EntityMapping, _ entity: StoreSchema.Entity, _ rows: [(Int64, Row)]) throws {
        guard let destinationName = entityMapping.destinationEntityName else { return }
        for (reference, row) in rows {
            do {
                let object = MigrationObject(row: row, reference: reference, entity: entity, store: store)
                guard let made = try destination(for: object, through: entityMapping) else { continue }
                try session.insert(entity: destinationName, attributeValues: made.attributeValues, relatedObjectIDs: made.relatedObjectIDs)
            } catch let error as MigrationError where error.code == .dataLoss {
                failures.append(lost: error.message)
            }
        }
    }

    /// The destination object of `source`: the policy's, else the mapping's standard one; `nil`
    /// when the policy drops it.
    private func destination(for source: MigrationObject, through entityMapping: EntityMapping) throws -> MigrationObject? {
        guard let policy = entityMapping.policy else { return try session.standardDestination(for: source, mapping: entityMapping) }
        return try policy.createDestinationInstance(for: source, mapping: entityMapping, in: session)
    }

    /// Ends the step: the policies' last word, then the objects custom code inserted. Throws
    /// the step's failures, if any, before anything is swapped in.
    func finish() throws -> [(String, [(Int64, Row)])] {
        for entityMapping in mapping.entityMappings {
            try entityMapping.policy?.endEntityMapping(entityMapping, in: session)
        }
        var extra: [String: [(Int64, Row)]] = [:]
        for id in session.insertionOrder {
            guard let object = session[inserted: id], let layout = manager.destinationModel.layout(for: object.entityName),
                let reference = id.referenceNumber
            else { continue }
            extra[object.entityName, default: []].append((reference, try object.row(for: layout, version: 1)))
        }
        let added = extra.sorted { $0.key < $1.key }.map { ($0.key, checked($0.value, entity: $0.key)) }
        if let error = failures.error(stage: manager.stageName) { throw error }
        return added
    }

    var report: MigrationReport { MigrationReport(stage: manager.stageName, filledValues: filled) }

    /// Checks and fills each mapped object; a failing one is listed and left out.
    private func checked(_ rows: [(Int64, Row)], entity: String) -> [(Int64, Row)] {
        guard !requirements.isEmpty else { return rows }
        return rows.compactMap { reference, row in
            var row = row
            let broken = requirements.check(&row, entity: entity, fillingMissingValues: manager.fillsMissingValues, filled: &filled)
            for requirement in broken {
                failures.append(missing: "\(ManagedObjectID.make(store: store, entity: entity, reference: reference)): \(requirement.place): \(requirement.rule)")
            }
            return broken.isEmpty ? (reference, row) : nil
        }
    }
}
