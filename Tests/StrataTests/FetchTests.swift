import Strata
import Testing

@Suite struct FetchTests {
    /// Five books by two authors, saved.
    static func library(_ kind: StoreKind) async throws -> PersistentStoreCoordinator {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        try await backgroundContext(coordinator).perform { context in
            let austen = try Author(context: context)
            austen.name = "Austen"
            let eliot = try Author(context: context)
            eliot.name = "Eliot"
            for (title, pages, author) in [
                ("Emma", 474, austen), ("Persuasion", 249, austen), ("Middlemarch", 880, eliot),
                ("Silas Marner", 183, eliot), ("Sanditon", 120, austen),
            ] {
                let book = try Book(context: context)
                book.title = title
                book.pages = pages
                book.author = author
            }
            try context.save()
        }
        return coordinator
    }

    @Test(arguments: StoreKind.queryable)
    func sortsByOneKeyThenAnother(_ kind: StoreKind) async throws {
        let coordinator = try await Self.library(kind)
        let titles = try await backgroundContext(coordinator).perform { context in
            var request = FetchRequest<Book>()
            request.sortDescriptors = [.descending("pages")]
            let byPages = try context.fetch(request).map(\.title)
            var byTitle = FetchRequest<Book>()
            byTitle.sortDescriptors = [.ascending("title")]
            return (byPages, try context.fetch(byTitle).map(\.title))
        }
        #expect(titles.0 == ["Middlemarch", "Emma", "Persuasion", "Silas Marner", "Sanditon"])
        #expect(titles.1 == ["Emma", "Middlemarch", "Persuasion", "Sanditon", "Silas Marner"])
    }

    @Test(arguments: StoreKind.queryable)
    func limitAndOffsetApplyAfterSorting(_ kind: StoreKind) async throws {
        let coordinator = try await Self.library(kind)
        let titles = try await backgroundContext(coordinator).perform { context in
            var request = FetchRequest<Book>()
            request.sortDescriptors = [.ascending("pages")]
            request.fetchOffset = 1
            request.fetchLimit = 2
            return try context.fetch(request).map(\.title)
        }
        #expect(titles == ["Silas Marner", "Persuasion"])
    }

    @Test(arguments: StoreKind.queryable)
    func pendingChangesAreIncludedUnlessAskedNotTo(_ kind: StoreKind) async throws {
        let coordinator = try await Self.library(kind)
        try await backgroundContext(coordinator).perform { context in
            let books = try context.fetch(FetchRequest<Book>())
            context.delete(try #require(books.first { $0.title == "Emma" }))
            let new = try Book(context: context)
            new.title = "Lady Susan"
            var request = FetchRequest<Book>()
            request.sortDescriptors = [.ascending("title")]
            #expect(try context.fetch(request).map(\.title)
                == ["Lady Susan", "Middlemarch", "Persuasion", "Sanditon", "Silas Marner"])
            request.includesPendingChanges = false
            #expect(try context.fetch(request).map(\.title)
                == ["Emma", "Middlemarch", "Persuasion", "Sanditon", "Silas Marner"])
        }
    }

    @Test(arguments: StoreKind.queryable)
    func fetchingTwiceGivesTheSameObjects(_ kind: StoreKind) async throws {
        let coordinator = try await Self.library(kind)
        try await backgroundContext(coordinator).perform { context in
            let first = try context.fetch(FetchRequest<Author>())
            let second = try context.fetch(FetchRequest<Author>())
            #expect(Set(first.map(ObjectIdentifier.init)) == Set(second.map(ObjectIdentifier.init)))
        }
    }

    @Test(arguments: StoreKind.queryable)
    func subentitiesAreFetchedWithTheirParentUnlessExcluded(_ kind: StoreKind) async throws {
        let model = try ManagedObjectModel {
            EntityDescription("Vehicle", isAbstract: true) { AttributeDescription("name", .string) }
            EntityDescription("Car", superentity: "Vehicle")
            EntityDescription("Bike", superentity: "Vehicle")
        }
        let coordinator = try await makeCoordinator(model, kind)
        try await backgroundContext(coordinator).perform { context in
            for (entity, name) in [("Car", "c1"), ("Bike", "b1"), ("Car", "c2")] {
                try context.insertNewObject(forEntityName: entity).setValue(name, forKey: "name")
            }
            try context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Vehicle")
            request.sortDescriptors = [.ascending("name")]
            #expect(try context.fetch(request).map { try $0.value(forKey: "name") as? String } == ["b1", "c1", "c2"])
            request.includesSubentities = false
            #expect(try context.fetch(request).isEmpty)
            let abstract = #expect(throws: PersistenceError.self) { try context.insertNewObject(forEntityName: "Vehicle") }
            #expect(abstract?.description == "the entity 'Vehicle' is abstract: insert one of its subentities")
            // Subentities share one sequence of reference numbers.
            request.includesSubentities = true
            let references = try context.fetch(request).compactMap(\.objectID.referenceNumber).sorted()
            #expect(references == [1, 2, 3])
        }
    }

    @Test(arguments: StoreKind.queryable)
    func badRequestsAreTypedErrors(_ kind: StoreKind) async throws {
        let coordinator = try await Self.library(kind)
        try await backgroundContext(coordinator).perform { context in
            let entity = #expect(throws: PersistenceError.self) {
                try context.fetch(FetchRequest<ManagedObject>(entityName: "Magazine"))
            }
            #expect(entity?.description == "the model has no entity named 'Magazine'")
            let mismatch = #expect(throws: PersistenceError.self) {
                try context.fetch(FetchRequest<Book>(entityName: "Author"))
            }
            #expect(mismatch?.description == "the objects of entity 'Author' are Author, not Book")
            var request = FetchRequest<Book>()
            request.sortDescriptors = [.ascending("isbn")]
            let key = #expect(throws: FetchPredicateError.self) { try context.fetch(request) }
            #expect(key?.code == .unknownKey)
            #expect(key?.description == "the entity Book has no key 'isbn'")
            // A sum of strings fails before any row is read, even where no row would match.
            let strings = FetchRequest<Book>(predicate: try FetchPredicate(format: "pages < 0 AND tags.@sum.label > 1"))
            let sum = #expect(throws: FetchPredicateError.self) { try context.fetch(strings) }
            #expect(sum?.code == .evaluation)
            #expect(sum?.description == "@sum needs numbers, and Tag.label is a String attribute")
        }
    }
}
