import Foundation
import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// Many contexts on one coordinator and one store (binary, then SQLite), doing random work at once (four
/// private-queue contexts, a child context saving into a private parent, a main-queue reader): inserts,
/// updates, deletes, relationship changes, saves, merges, refreshes. Seeded: a failure prints
/// the seed, and `STRATA_STRESS_SEED` replays it; `STRATA_STRESS_SCALE` multiplies the work.
///
/// Checked: every save lands whole or throws; no update is lost without a conflict reported
/// (replaying the successful saves in commit order gives exactly the store's final state);
/// inverses agree; a main-queue reader never sees part of a save; the store reloaded from disk
/// equals the coordinator's last generation.
@Suite(.serialized) struct StressTests {
    /// How much work, relative to the default: CI runs 0.25 under ThreadSanitizer.
    static let scale = Double(ProcessInfo.processInfo.environment["STRATA_STRESS_SCALE"] ?? "") ?? 1
    static let model = try! ManagedObjectModel {
        EntityDescription("Item") {
            AttributeDescription("label", .string)
            AttributeDescription("value", .integer64, defaultValue: 0)
            AttributeDescription("batch", .string)
            RelationshipDescription("group", toOne: "Group", inverse: "items")
        }
        EntityDescription("Group") {
            AttributeDescription("name", .string)
            RelationshipDescription("items", toMany: "Item", inverse: "group")
        }
    }

    /// What one successful save wrote, for the replay.
    struct Written: Sendable {
        let generation: QueryGenerationToken
        let values: [ManagedObjectID: [String]]
        let deleted: Set<ManagedObjectID>
    }

    @Test(arguments: StoreChecks.storeTypes)
    func manyContextsAtOnceLoseNothing(_ type: StoreType) async throws {
        let seed = ProcessInfo.processInfo.environment["STRATA_STRESS_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-stress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await StoreChecks.newStoreURL(type, named: "Stress", in: directory)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
        try await coordinator.addPersistentStore(type: type, at: url)
        let shared = Shared()
        let observer = Self.observeSaves()
        defer { NotificationCenter.default.removeObserver(observer) }
        let operations = max(20, Int(400 * Self.scale))
        let contexts = 4
        let watcher = try await ResultsWatcher(coordinator)

        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<contexts {
                group.addTask {
                    let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
                    var random = SplitMix64(seed: seed &+ UInt64(worker))
                    for step in 0..<operations {
                        let choice = Int.random(in: 0..<100, using: &random)
                        let pick = Int.random(in: 0..<1_000_000, using: &random)
                        let outcome = try await context.perform { context in
                            try Self.step(context, choice: choice, pick: pick, tag: "w\(worker)s\(step)")
                        }
                        switch outcome {
                        case .saved(let written): shared.ledger.withLock { $0.append(written) }
                        case .conflict: shared.conflicts.withLock { $0 += 1 }
                        case .nothing: break
                        }
                    }
                    // Save what is left, as often as conflicts take.
                    for _ in 0..<10 {
                        let outcome = try await context.perform { context in try Self.saveOrConflict(context) }
                        switch outcome {
                        case .saved(let written): shared.ledger.withLock { $0.append(written) }
                        case .conflict: shared.conflicts.withLock { $0 += 1 }
                        case .nothing: break
                        }
                        if try await context.perform({ !$0.hasChanges }) { break }
                    }
                }
            }
            group.addTask {
                // A child context inserts batches into a private parent, which saves them.
                let parent = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
                let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent)
                for round in 0..<max(5, Int(40 * Self.scale)) {
                    try await child.perform { context in
                        for index in 0..<3 {
                            let item = try context.insertNewObject(forEntityName: "Item")
                            try item.setValue("child\(round)-\(index)", forKey: "label")
                            try item.setValue("b3-child\(round)", forKey: "batch")
                        }
                        try context.save()
                        context.reset()
                    }
                    for _ in 0..<10 {
                        let outcome = try await parent.perform { context in try Self.saveOrConflict(context) }
                        if case .saved(let written) = outcome { shared.ledger.withLock { $0.append(written) } }
                        if case .conflict = outcome { shared.conflicts.withLock { $0 += 1 } }
                        if try await parent.perform({ !$0.hasChanges }) { break }
                    }
                }
            }
            group.addTask {
                // A main-queue reader: a batch of inserts is saved at once, so a read sees all of
                // it or none of it.
                let reader = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: coordinator)
                for _ in 0..<max(5, Int(40 * Self.scale)) {
                    let partial = try await reader.perform { context in
                        context.reset()
                        let items = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
                        var batches: [String: Int] = [:]
                        for item in items { batches[try item.value(forKey: "batch") as? String ?? "", default: 0] += 1 }
                        return batches.filter { key, count in key.hasPrefix("b3-") && count != 3 }.map(\.key)
                    }
                    shared.partialReads.withLock { $0 += partial }
                    try await Task.sleep(nanoseconds: 2_000_000)
                }
            }
            group.addTask {
                // A controller and a watched fetch follow the saves as the view context merges them.
                for _ in 0..<max(5, Int(40 * Self.scale)) {
                    let problems = try await watcher.problems()
                    shared.watcherProblems.withLock { $0 += problems }
                    try await Task.sleep(nanoseconds: 3_000_000)
                }
            }
            try await group.waitForAll()
        }
        // Merging is slow under ThreadSanitizer on PostgreSQL (each merge reads what it changed).
        let caughtUp = try await watcher.caughtUp(within: 120)
        #expect(caughtUp, "seed \(seed): the controller or the watched fetch is not a fresh fetch once every save is merged")
        #expect(shared.watcherProblems.withLock { $0 }.isEmpty, "seed \(seed): \(shared.watcherProblems.withLock { $0 })")
        await watcher.stop()

        #expect(shared.partialReads.withLock { $0 }.isEmpty, "seed \(seed): reads saw part of a save")
        // Replay the successful saves in commit order.
        var expected: [ManagedObjectID: [String]] = [:]
        for written in shared.ledger.withLock({ $0 }).sorted(by: { $0.generation < $1.generation }) {
            for (id, values) in written.values { expected[id] = values }
            for id in written.deleted { expected[id] = nil }
        }
        let live = try await Self.state(coordinator: coordinator)
        #expect(live == expected, "seed \(seed): the coordinator's state is not the replay of the saves")
        let (reloaded, disagreements) = try await Self.reloadedState(url: url, type: type, coordinator: coordinator)
        #expect(reloaded == live, "seed \(seed): the store on disk differs from the last generation")
        #expect(disagreements.isEmpty, "seed \(seed): inverse relationships disagree: \(disagreements.joined(separator: "; "))")
        #expect(live.count > 0)
        print("stress: seed \(seed), \(contexts) contexts × \(operations) operations, \(shared.ledger.withLock { $0.count }) saves, "
            + "\(shared.conflicts.withLock { $0 }) conflicts reported, \(live.count) objects")
    }

    /// What the workers record, from any thread.
    final class Shared: Sendable {
        let ledger = Locked<[Written]>([])
        let conflicts = Locked(0)
        let partialReads = Locked<[String]>([])
        let watcherProblems = Locked<[String]>([])
    }

    enum Outcome: Sendable {
        case saved(Written)
        case conflict
        case nothing
    }

    /// One random operation.
    static func step(_ context: isolated ManagedObjectContext, choice: Int, pick: Int, tag: String) throws -> Outcome {
        let items = context.registeredObjects.filter { $0.entity.name == "Item" && !$0.isDeleted }.sorted { $0.objectID.description < $1.objectID.description }
        let groups = context.registeredObjects.filter { $0.entity.name == "Group" && !$0.isDeleted }.sorted { $0.objectID.description < $1.objectID.description }
        switch choice {
        case 0..<15:
            // A batch of three items, saved at once.
            for index in 0..<3 {
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setValue("\(tag)-\(index)", forKey: "label")
                try item.setValue("b3-\(tag)", forKey: "batch")
            }
            return try saveOrConflict(context)
        case 15..<20:
            let group = try context.insertNewObject(forEntityName: "Group")
            try group.setValue(tag, forKey: "name")
        case 20..<50 where !items.isEmpty:
            let item = items[pick % items.count]
            try item.setValue(((try item.value(forKey: "value") as? Int64) ?? 0) + 1, forKey: "value")
            try item.setValue(tag, forKey: "label")
        case 50..<58 where !items.isEmpty:
            // A whole batch goes at once, so that readers see batches whole or not at all.
            let batch = try items[pick % items.count].value(forKey: "batch") as? String ?? ""
            let request = FetchRequest<ManagedObject>(entityName: "Item", predicate: try FetchPredicate(format: "batch == %@", batch))
            for item in try context.fetch(request) { context.delete(item) }
        case 58..<70 where !items.isEmpty && !groups.isEmpty:
            try items[pick % items.count].setValue(groups[pick % groups.count], forKey: "group")
        case 70..<85:
            return try saveOrConflict(context)
        case 85..<92:
            _ = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
        case 92..<96:
            context.refreshAllObjects()
        case 96..<100:
            if !context.hasChanges { context.reset() }
        default:
            break
        }
        return .nothing
    }

    static func saveOrConflict(_ context: isolated ManagedObjectContext) throws -> Outcome {
        do {
            return try saveAndRecord(context).map(Outcome.saved) ?? .nothing
        } catch let error as PersistenceError where error.code == .conflict {
            // Reported, not lost: rebase the changes and let a later save try again.
            for id in error.objectIDs {
                if let object = context.registeredObject(for: id) { context.refresh(object, mergeChanges: true) }
            }
            return .conflict
        } catch let error as ValidationError {
            // An item whose group was deleted elsewhere, say: drop the changes.
            _ = error
            context.rollback()
            return .nothing
        }
    }

    /// Saves, and records what the save wrote (every attribute of every saved object): the
    /// objects its did-save notification names, which include any the save changed on its own
    /// (the other side of a link, made after a rebase), not only those the worker changed.
    static func saveAndRecord(_ context: isolated ManagedObjectContext) throws -> Written? {
        guard context.hasChanges else { return nil }
        lastSaves.withLock { $0[ObjectIdentifier(context)] = nil }  // a save that writes nothing posts nothing
        try context.save()
        guard let saved = lastSaves.withLock({ $0.removeValue(forKey: ObjectIdentifier(context)) }) else { return nil }
        var values: [ManagedObjectID: [String]] = [:]
        for id in saved.written {
            guard let object = context.registeredObject(for: id) else { continue }
            values[id] = try describe(object)
        }
        return Written(generation: saved.generation, values: values, deleted: saved.deleted)
    }

    /// The objects each context's last save wrote and deleted, from its did-save notification
    /// (which `save()` posts before it returns).
    static let lastSaves = Locked<[ObjectIdentifier: (written: Set<ManagedObjectID>, deleted: Set<ManagedObjectID>, generation: QueryGenerationToken)]>([:])

    static func observeSaves() -> any NSObjectProtocol {
        NotificationCenter.default.addObserver(forName: ContextDidSave.notificationName, object: nil, queue: nil) { note in
            guard let context = note.object as? ManagedObjectContext else { return }
            func ids(_ key: String) -> Set<ManagedObjectID> { note.userInfo?[key] as? Set<ManagedObjectID> ?? [] }
            guard let generation = note.userInfo?[ContextDidSave.queryGenerationKey] as? QueryGenerationToken else { return }
            let saved = (written: ids(ContextDidSave.insertedObjectIDsKey).union(ids(ContextDidSave.updatedObjectIDsKey)),
                         deleted: ids(ContextDidSave.deletedObjectIDsKey), generation: generation)
            lastSaves.withLock { $0[ObjectIdentifier(context)] = saved }
        }
    }

    static func describe(_ object: ManagedObject) throws -> [String] {
        var fields: [String] = []
        for key in object.entity.attributesByName.keys.sorted() {
            fields.append("\(key)=\(try object.value(forKey: key) ?? "nil")")
        }
        if object.entity.name == "Item" {
            fields.append("group=\((try object.value(forKey: "group") as? ManagedObject)?.objectID.description ?? "nil")")
        }
        return fields
    }

    static func state(coordinator: PersistentStoreCoordinator) async throws -> [ManagedObjectID: [String]] {
        try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator).perform { context in
            var state: [ManagedObjectID: [String]] = [:]
            for entity in ["Item", "Group"] {
                for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entity)) {
                    state[object.objectID] = try describe(object)
                }
            }
            return state
        }
    }

    static func reloadedState(url: URL, type: StoreType, coordinator: PersistentStoreCoordinator) async throws -> ([ManagedObjectID: [String]], [String]) {
        let fresh = try await StoreChecks.reopen(url, type: type, leaving: coordinator, model: model)
        let state = try await Self.state(coordinator: fresh)
        let disagreements = try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: fresh).perform { context in
            try StoreChecks.inverseDisagreements(context, model: model)
        }
        return (state, disagreements)
    }
}
