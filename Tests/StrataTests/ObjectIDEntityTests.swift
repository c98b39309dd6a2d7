import Foundation
import Strata
import Testing

/// `objectID.entity` (issue 33; Core Data's `NSManagedObjectID.entity`: the entity of the
/// object the ID names), as history code reads it: `change.changedObjectID.entity.name`.
@Suite struct ObjectIDEntityTests {
    @Test func historyChangesNameTheirEntities() async throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("History.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        try await coordinator.addPersistentStore(type: .sqlite, at: url, options: [PersistentStoreOption.persistentHistoryTracking: true])
        let temporary = try await backgroundContext(coordinator).perform { context in
            let author = try Author(context: context)
            author.name = "Eliot"
            let book = try Book(context: context)
            book.title = "Middlemarch"
            book.author = author
            let entity = book.objectID.entity
            try context.save()
            return entity
        }
        #expect(temporary.name == "Book" && temporary.attributesByName["title"] != nil, "a temporary ID's entity, whole")

        let changes = try await coordinator.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions.flatMap(\.changes)
        let books = changes.filter { $0.changedObjectID.entity.name == "Book" }
        #expect(books.count == 1)
        let entity = try #require(books.first?.changedObjectID.entity)
        #expect(entity.relationshipsByName["author"]?.destinationEntity?.name == "Author", "the model's description, linked")
    }
}
