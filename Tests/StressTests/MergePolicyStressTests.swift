import Foundation
import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// Four contexts, one under each merge policy but `error`, work on one binary store at once:
/// inserts, updates, deletes, relationship changes (to-one and many-to-many), upserts into a
/// uniqueness constraint, saves, refreshes, and merges of each other's saves (two contexts merge
/// as saves happen, two when they choose to). Seeded like ``StressTests``: `STRATA_STRESS_SEED`
/// replays a run, `STRATA_STRESS_SCALE` multiplies the work.
///
/// Checked: no save fails, since each policy resolves every conflict and clash these contexts
/// make; a save under a policy where the context wins (merge by property, object trump;
/// overwrite) keeps every value the context set; no two tags share a code, and every code a
/// save upserted is there; inverses agree; the store reloaded from disk equals the last
/// generation.
@Suite(.serialized) struct MergePolicyStressTests {
    static let policies: [MergePolicy] = [.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback]
    static let model = try! ManagedObjectModel {
        EntityDescription("Item") {
            AttributeDescription("label", .string)
            AttributeDescription("value", .integer64, defaultValue: 0)
            RelationshipDescription("group", toOne: "Group", inverse: "items")
            RelationshipDescription("tags", toMany: "Tag", inverse: "items")
        }
        EntityDescription("Group") {
            AttributeDescription("name", .string)
            RelationshipDescription("items", toMany: "Item", inverse: "group")
        }
        EntityDescription("Tag") {
            AttributeDescription("code", .string)
            AttributeDescription("owner", .string)
            RelationshipDescription("items", toMany: "Item", inverse: "tags")
            UniquenessConstraint("code")
        }
    }

    /// What the workers record, from any thread.
    final class Shared: Sendable {
        let saves = Locked<[ContextDidSave]>([])
        let upsertedCodes = Locked<Set<String>>([])
        let violations = Locked<[String]>([])
        let failedSaves = Locked<[String]>([])
        let landed = Locked(0)
    }

    /// What a worker carries from one operation to the next: the values it set on saved objects
    /// since its last save, and how many of the coordinator's saves it has merged.
    struct WorkerState: Sendable {
        var intents: [ManagedObjectID: [String: String]] = [:]
        var merged = 0
    }

    @Test(arguments: StoreChecks.storeTypes)
    func policiesAndConstraintsHoldUnderLoad(_ type: StoreType) async throws {
        let seed = ProcessInfo.processInfo.environment["STRATA_STRESS_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-policy-stress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await StoreChecks.newStoreURL(type, named: "Policies", in: directory)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
        try await coordinator.addPersistentStore(type: type, at: url)
        let shared = Shared()
        let operations = max(20, Int(300 * StressTests.scale))
        let saves = coordinator.didSaveNotifications
        let listener = Task {
            for await save in saves { shared.saves.withLock { $0.append(save) } }
        }

        try await withThrowingTaskGroup(of: Void.self) { group in
            for (worker, policy) in Self.policies.enumerated() {
                group.addTask {
                    let context = ManagedObjectContext(
                        concurrencyType: worker == 3 ? .mainQueue : .privateQueue, persistentStoreCoordinator: coordinator)
                    try await context.perform { context in
                        context.mergePolicy = policy
                        // The contexts under the policies where the context wins merge when they
                        // choose to, so that they know which objects a merged deletion took.
                        context.automaticallyMergesChangesFromParent = !worker.isMultiple(of: 2)
                    }
                    var random = SplitMix64(seed: seed &+ UInt64(worker))
                    var state = WorkerState()
                    for step in 0..<operations {
                        let choice = Int.random(in: 0..<100, using: &random)
                        let pick = Int.random(in: 0..<1_000_000, using: &random)
                        let before = state
                        state = try await context.perform { context in
                            var state = before
                            try Self.step(context, choice: choice, pick: pick, tag: "w\(worker)s\(step)", state: &state, shared: shared)
                            return state
                        }
                    }
                    let last = state
                    _ = try await context.perform { context in
                        var state = last
                        return try Self.save(context, state: &state, shared: shared)
                    }
                }
            }
            try await group.waitForAll()
        }
        listener.cancel()

        let live = try await StoreChecks.state(of: coordinator, model: Self.model)
        let fresh = try await StoreChecks.reopen(url, type: type, leaving: coordinator, model: Self.model)
        let reloaded = try await StoreChecks.state(of: fresh, model: Self.model)
        let (codes, disagreements) = try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: fresh).perform {
            context in
            let codes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag")).map { try $0.value(forKey: "code") as? String ?? "" }
            return (codes, try StoreChecks.inverseDisagreements(context, model: Self.model))
        }
        #expect(shared.failedSaves.withLock { $0 }.isEmpty, "seed \(seed): saves failed: \(shared.failedSaves.withLock { $0 })")
        #expect(shared.violations.withLock { $0 }.isEmpty, "seed \(seed): values the context set were lost: \(shared.violations.withLock { $0 })")
        #expect(codes.count == Set(codes).count, "seed \(seed): two tags share a code: \(codes.sorted())")
        #expect(Set(codes) == shared.upsertedCodes.withLock { $0 }, "seed \(seed): an upserted tag is missing")
        #expect(disagreements.isEmpty, "seed \(seed): inverse relationships disagree: \(disagreements.joined(separator: "; "))")
        #expect(reloaded == live, "seed \(seed): the store on disk differs from the last generation")
        #expect(shared.landed.withLock { $0 } > 0 && !codes.isEmpty)
        print("policy stress: seed \(seed), \(Self.policies.count) contexts × \(operations) operations, \(shared.landed.withLock { $0 }) saves, "
            + "\(live.count) objects, \(codes.count) tags")
    }

    /// One random operation.
    static func step(
        _ context: isolated ManagedObjectContext, choice: Int, pick: Int, tag: String, state: inout WorkerState, shared: Shared
    ) throws {
        func live(_ entity: String) -> [ManagedObject] {
            context.registeredObjects.filter { $0.entity.name == entity && !$0.isDeleted && !$0.isFault }
                .sorted { $0.objectID.description < $1.objectID.description }
        }
        let items = live("Item")
        let groups = live("Group")
        switch choice {
        case 0..<12:
            for index in 0..<2 {
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setValue("\(tag)-\(index)", forKey: "label")
            }
            try save(context, state: &state, shared: shared)
        case 12..<18:
            let group = try context.insertNewObject(forEntityName: "Group")
            try group.setValue(tag, forKey: "name")
        case 18..<42 where !items.isEmpty:
            let item = items[pick % items.count]
            let value = ((try item.value(forKey: "value") as? Int64) ?? 0) + 1
            try item.setValue(value, forKey: "value")
            try item.setValue(tag, forKey: "label")
            if !item.isInserted { state.intents[item.objectID] = ["value": "\(value)", "label": tag] }
        case 42..<48 where !items.isEmpty:
            let item = items[pick % items.count]
            state.intents[item.objectID] = nil
            context.delete(item)
        case 48..<58 where !items.isEmpty && !groups.isEmpty:
            try items[pick % items.count].setValue(groups[pick % groups.count], forKey: "group")
        case 58..<70 where !items.isEmpty:
            // An upsert: a tag whose code another context may have saved already.
            let tagObject = try context.insertNewObject(forEntityName: "Tag")
            try tagObject.setValue("c\(pick % 12)", forKey: "code")
            try tagObject.setValue(tag, forKey: "owner")
            let item = items[pick % items.count]
            let tags = (try item.value(forKey: "tags") as? Set<ManagedObject>) ?? []
            try item.setValue(tags.union([tagObject]), forKey: "tags")
            try save(context, state: &state, shared: shared)
        case 70..<82:
            try save(context, state: &state, shared: shared)
        case 82..<90:
            let pending = shared.saves.withLock { Array($0[min(state.merged, $0.count)...]) }
            for save in pending {
                context.mergeChanges(fromContextDidSave: save)
                // A merged deletion takes the object and the changes made to it.
                for id in save.deletedObjectIDs { state.intents[id] = nil }
            }
            state.merged += pending.count
        case 90..<95:
            context.refreshAllObjects()
        case 95..<100:
            if !context.hasChanges { context.reset() }
        default:
            break
        }
    }

    /// Saves, and checks what the policy promises of the values this context set.
    @discardableResult
    static func save(_ context: isolated ManagedObjectContext, state: inout WorkerState, shared: Shared) throws -> Bool {
        guard context.hasChanges else { return false }
        let codes = context.insertedObjects.filter { $0.entity.name == "Tag" }.compactMap { try? $0.value(forKey: "code") as? String }
        // A value the context set stays its change only while it differs from the saved one: a
        // merge that met the same value from another save absorbs it (as in Core Data), and
        // later saves may change it.
        for (id, values) in state.intents {
            let pending = context.registeredObject(for: id)?.changedValues() ?? [:]
            state.intents[id] = values.filter { pending.keys.contains($0.key) }
        }
        do {
            try context.save()
        } catch {
            // What this context holds of the objects the error names, to tell why.
            var held: [String] = []
            for id in (error as? PersistenceError)?.objectIDs ?? [] {
                guard let object = context.registeredObject(for: id) else { continue }
                let now = object.entity.relationships.map { "\($0.name)=\((try? StoreChecks.targets(of: object, $0.name))?.map(\.objectID.description) ?? [])" }
                held.append("\(id) [\(object.isInserted ? "inserted" : object.isUpdated ? "updated" : "clean")] \(now)")
            }
            shared.failedSaves.withLock { $0.append("\(context.mergePolicy): \(error); the context holds: \(held)") }
            context.rollback()
            state.intents = [:]
            return false
        }
        shared.landed.withLock { $0 += 1 }
        shared.upsertedCodes.withLock { $0.formUnion(codes) }
        if context.mergePolicy == .mergeByPropertyObjectTrump || context.mergePolicy == .overwrite {
            for (id, values) in state.intents {
                guard let object = context.registeredObject(for: id), !object.isDeleted else { continue }
                for (key, value) in values {
                    let saved = "\(try object.value(forKey: key) ?? "nil")"
                    if saved != value { shared.violations.withLock { $0.append("\(context.mergePolicy): \(id).\(key) is \(saved), set \(value)") } }
                }
            }
        }
        state.intents = [:]
        return true
    }
}
