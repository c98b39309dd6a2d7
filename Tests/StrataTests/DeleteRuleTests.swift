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
}
