import Strata
import Testing

@Suite struct DeleteRuleTests {
    @Test func nullifyTakesTheObjectOutOfItsInverse() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        try await backgroundContext(coordinator).perform { context in
            let author = try Author(context: context)
            author.name = "Austen"
            let book = try Book(context: context)
            book.title = "Emma"
            book.author = author
            try context.save()

            context.delete(book)
            try context.save()
            #expect(author.books.isEmpty)
            #expect(try context.count(for: FetchRequest<Book>()) == 0)
        }
    }

    @Test func cascadeDeletesTheDestinationsInTurn() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        try await backgroundContext(coordinator).perform { context in
            let author = try Author(context: context)
            author.name = "Austen"
            let passport = try Passport(context: context)
            passport.number = "P1"
            author.passport = passport
            let book = try Book(context: context)
            book.title = "Emma"
            book.author = author
            let chapter = try Chapter(context: context)
            chapter.title = "I"
            chapter.book = book
            try context.save()

            context.delete(author)
            context.processPendingChanges()
            #expect(book.isDeleted && chapter.isDeleted && passport.isDeleted)
            try context.save()
            for count in [
                try context.count(for: FetchRequest<Author>()), try context.count(for: FetchRequest<Book>()),
                try context.count(for: FetchRequest<Chapter>()), try context.count(for: FetchRequest<Passport>()),
            ] {
                #expect(count == 0)
            }
        }
    }

    @Test func denyRefusesTheSaveWhileDestinationsRemain() async throws {
        let model = try ManagedObjectModel {
            EntityDescription("Shelf") {
                AttributeDescription("label", .string)
                RelationshipDescription("books", toMany: "Book", inverse: "shelf", deleteRule: .deny)
            }
            EntityDescription("Book") {
                AttributeDescription("title", .string)
                RelationshipDescription("shelf", toOne: "Shelf", inverse: "books")
            }
        }
        let coordinator = try await makeCoordinator(model)
        try await backgroundContext(coordinator).perform { context in
            let shelf = try context.insertNewObject(forEntityName: "Shelf")
            try shelf.setValue("A", forKey: "label")
            let book = try context.insertNewObject(forEntityName: "Book")
            try book.setValue("Emma", forKey: "title")
            try book.setValue(shelf, forKey: "shelf")
            try context.save()

            context.delete(shelf)
            let error = #expect(throws: ValidationError.self) { try context.save() }
            #expect(error?.code == .deleteDenied)
            #expect(error?.description
                == "Shelf.books: the object cannot be deleted while its 'books' relationship holds 1 object(s) (delete rule: deny)")
            context.rollback()
            #expect(!shelf.isDeleted)

            context.delete(book)
            context.delete(shelf)
            try context.save()
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Shelf")) == 0)
        }
    }

    @Test func noActionLeavesTheInverseAlone() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        try await backgroundContext(coordinator).perform { context in
            let tag = try Tag(context: context)
            tag.label = "classic"
            let book = try Book(context: context)
            book.title = "Emma"
            book.tags = [tag]
            try context.save()

            context.delete(tag)
            try context.save()
            #expect(book.committedValues(forKeys: ["tags"])["tags"].flatMap { $0 as? [ManagedObjectID] }?.count == 1)
        }
    }

    /// Core Data calls `prepareForDeletion()` inside `delete(_:)`, once, before the delete rules
    /// are applied (issue 30, item 5): the object's relationships are still whole when it runs,
    /// and neither processing pending changes nor saving calls it again.
    @Test func prepareForDeletionRunsInsideDeleteOnce() async throws {
        let model = try ManagedObjectModel {
            EntityDescription("Folder", class: CountingFolder.self) {
                AttributeDescription("name", .string)
                RelationshipDescription("notes", toMany: "Note", inverse: "folder", deleteRule: .cascade)
            }
            EntityDescription("Note") {
                AttributeDescription("text", .string)
                RelationshipDescription("folder", toOne: "Folder", inverse: "notes")
            }
        }
        let coordinator = try await makeCoordinator(model)
        try await backgroundContext(coordinator).perform { context in
            let folder = try #require(try context.insertNewObject(forEntityName: "Folder") as? CountingFolder)
            try folder.setValue("Inbox", forKey: "name")
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setValue("hello", forKey: "text")
            try note.setValue(folder, forKey: "folder")
            try context.save()

            context.delete(folder)
            #expect(folder.preparations == 1, "called inside delete(_:)")
            #expect(folder.notesWhenPrepared == 1, "before the cascade rule ran")
            #expect(!note.isDeleted)
            context.delete(folder)
            context.processPendingChanges()
            #expect(note.isDeleted)
            try context.save()
            #expect(folder.preparations == 1)
        }
    }
}

final class CountingFolder: ManagedObject {
    var preparations = 0
    var notesWhenPrepared: Int?

    override func prepareForDeletion() {
        preparations += 1
        notesWhenPrepared = (try? value(forKey: "notes") as? Set<ManagedObject>)?.count
    }
}
