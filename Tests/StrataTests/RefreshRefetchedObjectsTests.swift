import Foundation
import Strata
import Testing

/// `shouldRefreshRefetchedObjects` (issue 33; Core Data's documentation: "whether the property
/// values of fetched objects will be updated with the current values in the persistent
/// store"): a refetch of objects the context holds takes the store's values, keeping the
/// context's unsaved changes; without it, they keep the values they have.
@Suite struct RefreshRefetchedObjectsTests {
    @Test(arguments: [StoreKind.inMemory, .binary, .sqlite])
    func aRefetchTakesTheStoresValuesWhenAsked(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let reader = backgroundContext(coordinator)
        let (emmaID, nanaID) = try await reader.perform { context in
            let emma = try Book(context: context)
            emma.title = "Emma"
            let nana = try Book(context: context)
            nana.title = "Nana"
            try context.save()
            return (emma.objectID, nana.objectID)
        }
        try await backgroundContext(coordinator).perform { context in
            for id in [emmaID, nanaID] {
                let book = try #require(try context.existingObject(with: id) as? Book)
                book.title += " (2nd edition)"
                book.pages = 500
            }
            try context.save()
        }
        let (plain, refreshed, nanaPages) = try await reader.perform { context in
            let nana = try #require(context.registeredObject(for: nanaID) as? Book)
            nana.pages = 99  // an unsaved change the refresh keeps
            var request = FetchRequest<Book>(sortDescriptors: [.ascending("title")])
            let plain = try context.fetch(request).map(\.title)
            request.shouldRefreshRefetchedObjects = true
            let refreshed = try context.fetch(request).map(\.title)
            return (plain, refreshed, nana.pages)
        }
        #expect(plain.sorted() == ["Emma", "Nana"], "without it, held objects keep their values")
        #expect(refreshed.sorted() == ["Emma (2nd edition)", "Nana (2nd edition)"])
        #expect(nanaPages == 99, "the context's unsaved change stays on top")
    }
}
