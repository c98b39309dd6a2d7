import Foundation
import Strata
import Testing

/// Apple's pattern for a batch delete that the app's contexts see (issue 33; Core Data's
/// documentation of `NSBatchDeleteRequest` and of
/// `mergeChanges(fromRemoteContextSave:into:)`): ask for the deleted objects' IDs, then merge
/// them under `NSDeletedObjectsKey` into the contexts, written as Core Data code writes it.
@Suite struct BatchDeleteMergeTests {
    @Test(arguments: StoreKind.queryable)
    func aBatchDeleteMergedByItsIDsLeavesTheContexts(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let view = backgroundContext(coordinator)
        try await view.perform { context in
            for label in ["keep", "old-1", "old-2"] { try Tag(context: context).label = label }
            try context.save()
        }
        let background = backgroundContext(coordinator)
        let deleted = try await background.perform { context in
            var fetchRequest = FetchRequest<FetchRequestResult>(entityName: "Tag")
            fetchRequest.predicate = try FetchPredicate(format: "label BEGINSWITH %@", "old")
            var deleteRequest = BatchDeleteRequest(fetchRequest: fetchRequest)
            deleteRequest.resultType = .resultTypeObjectIDs
            let result: BatchDeleteResult? = try context.execute(deleteRequest)
            let objectIDArray = result?.result as? [ManagedObjectID]
            let changes: [AnyHashable: Any] = [DeletedObjectsKey: objectIDArray ?? []]
            ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [view, context])
            return objectIDArray?.count ?? 0
        }
        #expect(deleted == 2)
        let left = try await view.perform { context in
            (context.registeredObjects.compactMap { ($0 as? Tag)?.label }.sorted(), try context.fetch(FetchRequest<Tag>()).map(\.label))
        }
        #expect(left.0 == ["keep"], "the deleted objects left the view context")
        #expect(left.1 == ["keep"])

        // URIs, in a set, under the IDs key, as code that kept them in user defaults passes them.
        let keep = try await view.perform { try $0.fetch(FetchRequest<Tag>()).map(\.objectID) }
        let uris = Set(keep.map { $0.uriRepresentation() })
        var request = BatchDeleteRequest(objectIDs: keep)
        request.resultType = .resultTypeCount
        let delete = request
        #expect(try await background.perform { try $0.execute(delete).result as? Int } == 1)
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: [ManagedObjectContext.NotificationKey.deletedObjectIDs.rawValue: uris], into: [view])
        #expect(try await view.perform { context in context.registeredObjects.count } == 0)
    }
}
