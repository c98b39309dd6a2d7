import Foundation
import Strata
import Testing

/// What a fetch returns, as Core Data's `NSFetchRequest` documents it (issue 30, item 3):
/// `returnsObjectsAsFaults` (default `true`) gives objects that are faults until a property is
/// first read, and fire from the row the fetch read (the row cache) without asking the store
/// again, whatever has been saved since, as long as the context's `stalenessInterval` is
/// negative (its default: "infinite staleness allowed"); `false` gives them realised.
/// `includesPropertyValues = false` keeps no values: its faults read the store when they fire.
/// `awakeFromFetch()` runs when the values arrive, not before.
@Suite struct FetchedFaultTests {
    final class Counted: ManagedObject {
        var awakenings = 0
        override func awakeFromFetch() { awakenings += 1 }
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Counted", class: Counted.self) { AttributeDescription("name", .string) }
        }
    }

    /// A coordinator with three saved objects, named a, b and c.
    static func stored(_ kind: StoreKind) async throws -> PersistentStoreCoordinator {
        let coordinator = try await makeCoordinator(model(), kind)
        try await backgroundContext(coordinator).perform { context in
            for name in ["a", "b", "c"] { try context.insertNewObject(forEntityName: "Counted").setValue(name, forKey: "name") }
            try context.save()
        }
        return coordinator
    }

    /// Renames every object, in a context of its own.
    static func renameAll(_ coordinator: PersistentStoreCoordinator, to name: String) async throws {
        try await backgroundContext(coordinator).perform { context in
            for object in try context.fetch(FetchRequest<Counted>()) { try object.setValue(name, forKey: "name") }
            try context.save()
        }
    }

    @Test(arguments: StoreKind.allCases)
    func fetchedObjectsAreFaultsUntilAPropertyIsRead(_ kind: StoreKind) async throws {
        let coordinator = try await Self.stored(kind)
        try await backgroundContext(coordinator).perform { context in
            let objects = try context.fetch(FetchRequest<Counted>(sortDescriptors: [.ascending("name")]))
            #expect(objects.count == 3)
            #expect(objects.allSatisfy { $0.isFault }, "isFault right after a fetch that did not find them registered")
            #expect(objects.allSatisfy { $0.awakenings == 0 }, "awakeFromFetch waits for the values")
            #expect(try objects[1].value(forKey: "name") as? String == "b")
            #expect(!objects[1].isFault)
            #expect(objects[1].awakenings == 1)
            #expect(objects[0].isFault && objects[2].isFault, "reading one object fires no other")

            // Registered objects come back as they are.
            let again = try context.fetch(FetchRequest<Counted>(sortDescriptors: [.ascending("name")]))
            #expect(again.map(ObjectIdentifier.init) == objects.map(ObjectIdentifier.init))
            #expect(again.map(\.isFault) == [true, false, true])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func returnsObjectsAsFaultsFalseGivesThemRealised(_ kind: StoreKind) async throws {
        let coordinator = try await Self.stored(kind)
        try await backgroundContext(coordinator).perform { context in
            let faults = try context.fetch(FetchRequest<Counted>(predicate: try FetchPredicate(format: "name == 'a'")))
            #expect(faults.first?.isFault == true)
            var request = FetchRequest<Counted>(sortDescriptors: [.ascending("name")])
            request.returnsObjectsAsFaults = false
            let objects = try context.fetch(request)
            #expect(objects.allSatisfy { !$0.isFault }, "a fault already registered fires too")
            #expect(objects.allSatisfy { $0.awakenings == 1 })
            #expect(try objects.map { try $0.value(forKey: "name") as? String } == ["a", "b", "c"])
        }
    }

    /// The row cache at its default staleness: what another context saved after the fetch does
    /// not reach a fault the fetch returned; with `stalenessInterval = 0` it does.
    @Test(arguments: StoreKind.allCases)
    func aFaultFiresWithTheRowItsFetchReadUnlessStalenessSaysOtherwise(_ kind: StoreKind) async throws {
        let coordinator = try await Self.stored(kind)
        let context = backgroundContext(coordinator)
        try await context.perform { context in
            _ = try context.fetch(FetchRequest<Counted>())
        }
        try await Self.renameAll(coordinator, to: "renamed")
        let names = try await context.perform { context in
            let objects = Array(context.registeredObjects).sorted { $0.objectID.uriRepresentation().absoluteString < $1.objectID.uriRepresentation().absoluteString }
            let first = try objects[0].value(forKey: "name") as? String
            context.stalenessInterval = 0
            let rest = try objects.dropFirst().map { try $0.value(forKey: "name") as? String }
            return [first] + rest
        }
        #expect(names[0] != "renamed", "fired from the row cache")
        #expect(names.dropFirst().allSatisfy { $0 == "renamed" }, "stalenessInterval 0: no cached row is fresh enough")
    }

    @Test(arguments: StoreKind.allCases)
    func withoutPropertyValuesFaultsReadTheStoreWhenTheyFire(_ kind: StoreKind) async throws {
        let coordinator = try await Self.stored(kind)
        let context = backgroundContext(coordinator)
        let count = try await context.perform { context in
            var request = FetchRequest<Counted>()
            request.includesPropertyValues = false
            request.returnsObjectsAsFaults = false  // ignored without values
            let objects = try context.fetch(request)
            #expect(objects.allSatisfy { $0.isFault })
            return objects.count
        }
        #expect(count == 3)
        try await Self.renameAll(coordinator, to: "renamed")
        let names = try await context.perform { context in
            try context.registeredObjects.map { try $0.value(forKey: "name") as? String }
        }
        #expect(names == ["renamed", "renamed", "renamed"])
    }

    /// Merging a save, or refreshing, lets a fault's cached row go: it fires with the latest
    /// values (Core Data's merge refreshes the row cache with the saved rows).
    @Test(arguments: StoreKind.allCases)
    func aMergeOrARefreshReachesAFaultsValues(_ kind: StoreKind) async throws {
        let coordinator = try await Self.stored(kind)
        let reader = backgroundContext(coordinator)
        try await reader.perform { context in
            _ = try context.fetch(FetchRequest<Counted>())
        }
        let writer = backgroundContext(coordinator)
        var saves = writer.didSaveNotifications.makeAsyncIterator()
        try await writer.perform { context in
            let object = try #require(try context.fetch(FetchRequest<Counted>(predicate: try FetchPredicate(format: "name == 'a'"))).first)
            try object.setValue("merged", forKey: "name")
            try context.save()
        }
        let didSave = try #require(await saves.next())
        try await Self.renameAll(coordinator, to: "refreshed")
        let mergedID = try #require(didSave.updatedObjectIDs.first)
        let names = try await reader.perform { context in
            context.mergeChanges(fromContextDidSave: didSave)
            let rest = context.registeredObjects.filter { $0.objectID != mergedID }
                .sorted { $0.objectID.uriRepresentation().absoluteString < $1.objectID.uriRepresentation().absoluteString }
            context.refresh(rest[0], mergeChanges: true)
            return [
                try context.object(with: mergedID).value(forKey: "name") as? String,
                try rest[0].value(forKey: "name") as? String, try rest[1].value(forKey: "name") as? String,
            ]
        }
        let (merged, refreshed, others) = (names[0], names[1], names[2])
        // The merged fault reads the latest values (the later save's, on an unpinned context).
        #expect(merged == "refreshed")
        #expect(refreshed == "refreshed")
        #expect(others == "b" || others == "c", "neither merged nor refreshed: its fetch's row")
    }
}
