import Foundation
import Strata
import Testing

/// Child contexts read their parent, unsaved changes included, and save into it.
@Suite struct ParentContextTests {
    @Test(arguments: StoreKind.queryable)
    func aChildSavesIntoItsParentAndTheParentSavesToTheStore(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let parent = backgroundContext(coordinator)
        let austenID = try await parent.perform { context in
            let austen = try Author(context: context)
            austen.name = "Jane Austen"
            return austen.objectID  // unsaved: a temporary ID
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent)
        #expect(child.parent === parent)
        let emmaID = try await child.perform { context in
            // The child sees the parent's unsaved author.
            let austen = try #require(try context.existingObject(with: austenID) as? Author)
            #expect(austen.name == "Jane Austen")
            let emma = try Book(context: context)
            emma.title = "Emma"
            emma.author = austen
            austen.name = "J. Austen"
            try context.save()
            #expect(context.hasChanges == false)
            return emma.objectID
        }
        let stored = try await backgroundContext(coordinator).perform { try $0.count(for: FetchRequest<Book>()) }
        #expect(stored == 0, "a child's save reaches the parent, not the store")

        let (name, titles, pending) = try await parent.perform { context in
            let austen = try #require(context.registeredObject(for: austenID) as? Author)
            let emma = try #require(try context.existingObject(with: emmaID) as? Book)
            #expect(emma.author === austen)
            return (austen.name, austen.books.map(\.title), context.insertedObjects.count)
        }
        #expect(name == "J. Austen")
        #expect(titles == ["Emma"])
        #expect(pending == 2)

        try await parent.perform { try $0.save() }
        let (authors, books) = try await backgroundContext(coordinator).perform { context in
            (try context.fetch(FetchRequest<Author>()).map(\.name), try context.fetch(FetchRequest<Book>()).map { "\($0.title) by \($0.author?.name ?? "-")" })
        }
        #expect(authors == ["J. Austen"])
        #expect(books == ["Emma by J. Austen"])
    }

    @Test(arguments: StoreKind.queryable)
    func aChildsDeleteAndFetchFollowTheParent(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        try await backgroundContext(coordinator).perform { context in
            for label in ["a", "b", "c"] { try Tag(context: context).label = label }
            try context.save()
        }
        let parent = backgroundContext(coordinator)
        try await parent.perform { context in
            try #require(try context.fetch(FetchRequest<Tag>()).first { $0.label == "a" }).label = "A"
            try Tag(context: context).label = "d"
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent)
        let seen = try await child.perform { context in
            let tags = try context.fetch(FetchRequest<Tag>(sortDescriptors: [.ascending("label")]))
            let labels = tags.map(\.label)
            context.delete(try #require(tags.first { $0.label == "b" }))
            try context.save()
            return labels
        }
        #expect(seen == ["A", "b", "c", "d"], "the child sees the parent's unsaved change and insert")
        try await parent.perform { context in
            #expect(context.deletedObjects.count == 1)
            try context.save()
        }
        let stored = try await backgroundContext(coordinator).perform { context in
            try context.fetch(FetchRequest<Tag>(sortDescriptors: [.ascending("label")])).map(\.label)
        }
        #expect(stored == ["A", "c", "d"])
    }
}
