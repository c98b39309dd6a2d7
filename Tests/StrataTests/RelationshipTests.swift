import Strata
import Testing

/// Setting one side of a relationship keeps the other side in step, for every kind.
@Suite struct RelationshipTests {
    @Test func toOneSetsTheToManyInverse() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        try await backgroundContext(coordinator).perform { context in
            let austen = try Author(context: context)
            let eliot = try Author(context: context)
            let book = try Book(context: context)
            book.author = austen
            #expect(austen.books == [book])
            book.author = eliot
            #expect(austen.books.isEmpty)
            #expect(eliot.books == [book])
            book.author = nil
            #expect(eliot.books.isEmpty)
        }
    }

    @Test func toManySetsTheToOneInverseAndTakesTheObjectFromItsOldOwner() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        try await backgroundContext(coordinator).perform { context in
            let austen = try Author(context: context)
            let eliot = try Author(context: context)
            let emma = try Book(context: context)
            let persuasion = try Book(context: context)
            austen.books = [emma, persuasion]
            #expect(emma.author === austen && persuasion.author === austen)
            eliot.books = [emma]
            #expect(emma.author === eliot)
            #expect(austen.books == [persuasion], "a to-one inverse moves the object out of its old owner")
            austen.books = []
            #expect(persuasion.author == nil)
        }
    }

    @Test func manyToManyKeepsBothSides() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        try await backgroundContext(coordinator).perform { context in
            let classic = try Tag(context: context)
            let novel = try Tag(context: context)
            let emma = try Book(context: context)
            let middlemarch = try Book(context: context)
            emma.tags = [classic, novel]
            middlemarch.tags = [novel]
            #expect(classic.books == [emma])
            #expect(novel.books == [emma, middlemarch])
            novel.books = [middlemarch]
            #expect(emma.tags == [classic])
        }
    }

    @Test func orderedToManyKeepsItsOrderThroughASave() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let id = try await backgroundContext(coordinator).perform { context in
            let book = try Book(context: context)
            book.title = "Emma"
            var chapters: [Chapter] = []
            for title in ["III", "I", "II"] {
                let chapter = try Chapter(context: context)
                chapter.title = title
                chapters.append(chapter)
            }
            book.chapters = chapters
            #expect(chapters.allSatisfy { $0.book === book })
            try context.save()
            return book.objectID
        }
        let titles = try await backgroundContext(coordinator).perform { context in
            let book = try #require(try context.existingObject(with: id) as? Book)
            return book.chapters.map(\.title)
        }
        #expect(titles == ["III", "I", "II"])
    }

    @Test func oneToOneTakesTheObjectFromItsPreviousHolder() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        try await backgroundContext(coordinator).perform { context in
            let austen = try Author(context: context)
            let eliot = try Author(context: context)
            let passport = try Passport(context: context)
            austen.passport = passport
            #expect(passport.holder === austen)
            passport.holder = eliot
            #expect(eliot.passport === passport)
            #expect(austen.passport == nil)
        }
    }

    @Test func relationshipsSurviveASaveAndAFreshContext() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let authorID = try await backgroundContext(coordinator).perform { context in
            let author = try Author(context: context)
            author.name = "Jane Austen"
            for title in ["Emma", "Persuasion"] {
                let book = try Book(context: context)
                book.title = title
                book.author = author
            }
            try context.save()
            return author.objectID
        }
        let (titles, authorsOfBooks) = try await backgroundContext(coordinator).perform { context in
            let author = try #require(try context.existingObject(with: authorID) as? Author)
            return (Set(author.books.map(\.title)), Set(author.books.map { $0.author?.objectID }))
        }
        #expect(titles == ["Emma", "Persuasion"])
        #expect(authorsOfBooks == [authorID])
    }

    @Test func keyValueAccessChecksKeysAndTypes() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        try await backgroundContext(coordinator).perform { context in
            let book = try Book(context: context)
            let tag = try Tag(context: context)
            try book.setValue("Emma", forKey: "title")
            try book.setValue(412, forKey: "pages")
            #expect(try book.value(forKey: "pages") as? Int32 == 412)
            try book.setValue(Set([tag]), forKey: "tags")
            #expect(tag.books == [book])

            let unknown = #expect(throws: ValidationError.self) { try book.setValue(1, forKey: "isbn") }
            #expect(unknown?.code == .unknownKey)
            #expect(unknown?.description == "Book.isbn: the entity has no property with this name")
            let wrongType = #expect(throws: ValidationError.self) { try book.setValue("many", forKey: "pages") }
            #expect(wrongType?.description == "Book.pages: a String value does not fit a Integer 32 attribute")
            let wrongEntity = #expect(throws: ValidationError.self) { try book.setValue(tag, forKey: "author") }
            #expect(wrongEntity?.description == "Book.author: a Tag object cannot be a Author")
            #expect(book.title == "Emma", "a refused value changes nothing")
        }
    }

    @Test func objectsTheContextLetGoAreRefused() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        try await backgroundContext(coordinator).perform { context in
            let book = try Book(context: context)
            book.title = "Emma"
            try context.save()
            context.reset()
            #expect(book.managedObjectContext == nil)

            // The compiler keeps other contexts' objects out of this closure; an object the
            // context let go of is refused at run time.
            let author = try Author(context: context)
            let error = #expect(throws: ValidationError.self) { try author.setValue(Set([book]), forKey: "books") }
            #expect(error?.code == .wrongContext)
            #expect(author.books.isEmpty)
        }
    }

    /// A context holds an author read before another save took a book from it, and the book
    /// read after. Giving the book back to that author must reach the store on both sides,
    /// though the author's stale values already list the book.
    @Test(arguments: [true, false])
    func anInverseChangeReachesAnObjectReadFromAnOlderGeneration(givesBack: Bool) async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let (bookID, austenID, eliotID) = try await Self.saveEmmaByAusten(coordinator)
        let stale = backgroundContext(coordinator)
        try await stale.perform { context in
            let austen = try #require(context.existingObject(with: austenID) as? Author)
            let eliot = try #require(context.existingObject(with: eliotID) as? Author)
            #expect(austen.books.count == 1 && eliot.books.isEmpty)
        }
        try await Self.giveBook(bookID, to: eliotID, coordinator)
        try await stale.perform { context in
            // The book comes in fresh; both authors keep what they read before.
            let book = try #require(context.object(with: bookID) as? Book)
            context.refresh(book, mergeChanges: false)
            #expect(book.author?.objectID == eliotID)
            if givesBack {
                book.author = try #require(context.registeredObject(for: austenID) as? Author)
            } else {
                book.author = nil
            }
            try context.save()
        }
        let (author, austenBooks, eliotBooks) = try await Self.whoHoldsEmma(coordinator, bookID, austenID, eliotID)
        #expect(author == (givesBack ? "Austen" : nil))
        #expect(austenBooks == (givesBack ? ["Emma"] : []))
        #expect(eliotBooks.isEmpty)
    }

    /// As above, but the author has unsaved changes of its own, so its save conflicts and is
    /// rebased on the store, which no longer lists the book: the rebase must keep the book the
    /// context gave it.
    @Test(arguments: [MergePolicy.error, .mergeByPropertyObjectTrump])
    func anInverseChangeSurvivesTheRebaseOfAChangedObject(_ policy: MergePolicy) async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let (bookID, austenID, eliotID) = try await Self.saveEmmaByAusten(coordinator)
        let stale = backgroundContext(coordinator)
        try await stale.perform { context in
            context.mergePolicy = policy
            let austen = try #require(context.existingObject(with: austenID) as? Author)
            austen.name = "Jane Austen"
        }
        try await Self.giveBook(bookID, to: eliotID, coordinator)
        try await stale.perform { context in
            let book = try #require(context.object(with: bookID) as? Book)
            context.refresh(book, mergeChanges: false)
            book.author = try #require(context.registeredObject(for: austenID) as? Author)
            if policy == .error {
                let error = try #require(throws: PersistenceError.self) { try context.save() }
                for id in error.objectIDs {
                    if let object = context.registeredObject(for: id) { context.refresh(object, mergeChanges: true) }
                }
            }
            try context.save()
        }
        let (author, austenBooks, eliotBooks) = try await Self.whoHoldsEmma(coordinator, bookID, austenID, eliotID)
        #expect(author == "Jane Austen")
        #expect(austenBooks == ["Emma"])
        #expect(eliotBooks.isEmpty)
    }

    /// Saves Austen, Eliot and the book Emma by Austen; returns the IDs of the book and authors.
    static func saveEmmaByAusten(_ coordinator: PersistentStoreCoordinator) async throws
        -> (ManagedObjectID, ManagedObjectID, ManagedObjectID)
    {
        try await backgroundContext(coordinator).perform { context in
            let austen = try Author(context: context)
            austen.name = "Austen"
            let eliot = try Author(context: context)
            eliot.name = "Eliot"
            let book = try Book(context: context)
            book.title = "Emma"
            book.author = austen
            try context.save()
            return (book.objectID, austen.objectID, eliot.objectID)
        }
    }

    /// Another context gives the book to an author and saves.
    static func giveBook(_ bookID: ManagedObjectID, to authorID: ManagedObjectID, _ coordinator: PersistentStoreCoordinator) async throws {
        try await backgroundContext(coordinator).perform { context in
            let book = try #require(context.existingObject(with: bookID) as? Book)
            book.author = try #require(context.existingObject(with: authorID) as? Author)
            try context.save()
        }
    }

    /// As the store has it: the book's author, and the titles each author holds.
    static func whoHoldsEmma(_ coordinator: PersistentStoreCoordinator, _ bookID: ManagedObjectID, _ austenID: ManagedObjectID, _ eliotID: ManagedObjectID)
        async throws -> (String?, [String], [String])
    {
        try await backgroundContext(coordinator).perform { context in
            let book = try #require(context.existingObject(with: bookID) as? Book)
            let austen = try #require(context.existingObject(with: austenID) as? Author)
            let eliot = try #require(context.existingObject(with: eliotID) as? Author)
            return (book.author?.name, austen.books.map(\.title), eliot.books.map(\.title))
        }
    }
}
