import Foundation
import Strata
import Testing

/// Two contexts change the same book; the second save meets the first's change.
@Suite struct MergePolicyTests {
    /// Saves "Draft"/100 pages/tag "a"; context A then saves title "A" and pages 111; context B,
    /// which read the original, changes title to "B" and adds 1 to pages... then saves under `policy`.
    static func conflict(
        under policy: MergePolicy, deleteFirst: Bool = false, _ kind: StoreKind
    ) async throws -> (Result<String, PersistenceError>, String) {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let id = try await backgroundContext(coordinator).perform { context in
            let book = try Book(context: context)
            book.title = "Draft"
            book.pages = 100
            try context.save()
            return book.objectID
        }
        let first = backgroundContext(coordinator)
        let second = backgroundContext(coordinator)
        for context in [first, second] { _ = try await context.perform { try $0.existingObject(with: id).objectID } }
        try await first.perform { context in
            let book = try #require(context.registeredObject(for: id) as? Book)
            if deleteFirst {
                context.delete(book)
            } else {
                book.title = "A"
                book.pages = 111
            }
            try context.save()
        }
        let result: Result<String, PersistenceError> = try await second.perform { context in
            context.mergePolicy = policy
            let book = try #require(context.registeredObject(for: id) as? Book)
            book.title = "B"
            do {
                try context.save()
                return .success("saved")
            } catch let error as PersistenceError {
                return .failure(error)
            }
        }
        let stored = try await backgroundContext(coordinator).perform { context in
            guard let book = try? context.existingObject(with: id) as? Book else { return "deleted" }
            return "\(book.title) \(book.pages)"
        }
        return (result, stored)
    }

    @Test(arguments: StoreKind.queryable)
    func errorReportsEveryConflictWithBothSides(_ kind: StoreKind) async throws {
        let (result, stored) = try await Self.conflict(under: .error, kind)
        guard case .failure(let error) = result else {
            Issue.record("the save should have failed")
            return
        }
        #expect(error.code == .conflict)
        let conflict = try #require(error.conflicts.first)
        #expect(conflict.contextVersion == 1 && conflict.storeVersion == 2)
        #expect(conflict.contextValues["title"] == .some(.string("B")))
        #expect(conflict.storeValues["title"] == .some(.string("A")))
        #expect(!error.message.contains("\"A\""), "values stay out of the message")
        #expect(stored == "A 111")
    }

    @Test(arguments: [
        (MergePolicy.mergeByPropertyObjectTrump, "B 111"),
        (MergePolicy.mergeByPropertyStoreTrump, "A 111"),
        (MergePolicy.overwrite, "B 100"),
        (MergePolicy.rollback, "A 111"),
    ])
    func policiesResolveAsCoreDataDoes(_ policy: MergePolicy, _ expected: String) async throws {
        for kind in StoreKind.queryable {
            let (result, stored) = try await Self.conflict(under: policy, kind)
            #expect((try? result.get()) == "saved", "\(kind)")
            #expect(stored == expected, "\(kind)")
        }
    }

    @Test(arguments: [
        (MergePolicy.mergeByPropertyObjectTrump, "B 100"),
        (MergePolicy.overwrite, "B 100"),
        (MergePolicy.mergeByPropertyStoreTrump, "deleted"),
        (MergePolicy.rollback, "deleted"),
    ])
    func aChangeToAnObjectTheOtherSaveDeleted(_ policy: MergePolicy, _ expected: String) async throws {
        for kind in StoreKind.queryable {
            let (result, stored) = try await Self.conflict(under: policy, deleteFirst: true, kind)
            #expect((try? result.get()) == "saved", "\(kind)")
            #expect(stored == expected, "\(kind)")
        }
    }

    /// New objects whose save failed got permanent IDs, and get fresh ones when the save is
    /// tried again: their relationships to each other must follow to the new IDs.
    @Test(arguments: StoreKind.queryable)
    func newObjectsKeepTheirLinksWhenASaveIsTriedAgain(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let id = try await backgroundContext(coordinator).perform { context in
            let book = try Book(context: context)
            book.title = "Draft"
            try context.save()
            return book.objectID
        }
        let first = backgroundContext(coordinator)
        let second = backgroundContext(coordinator)
        _ = try await second.perform { try $0.existingObject(with: id).objectID }
        try await first.perform { context in
            try #require(context.existingObject(with: id) as? Book).title = "First"
            try context.save()
        }
        let (failedIDs, savedIDs) = try await second.perform { context in
            let old = try #require(context.registeredObject(for: id) as? Book)
            old.title = "Second"
            let author = try Author(context: context)
            author.name = "New"
            let book = try Book(context: context)
            book.title = "New book"
            book.author = author
            let chapter = try Chapter(context: context)
            chapter.title = "One"
            book.chapters = [chapter]
            #expect(throws: PersistenceError.self) { try context.save() }
            let failedIDs = [author.objectID, book.objectID, chapter.objectID]
            context.mergePolicy = .mergeByPropertyObjectTrump
            try context.save()
            return (failedIDs, [author.objectID, book.objectID, chapter.objectID])
        }
        #expect(failedIDs.allSatisfy { !$0.isTemporaryID })
        #expect(Set(failedIDs).isDisjoint(with: savedIDs), "reference numbers are not handed out twice")
        let (authorName, chapterTitles, chapterBook) = try await backgroundContext(coordinator).perform { context in
            let book = try #require(context.existingObject(with: savedIDs[1]) as? Book)
            let chapter = try #require(context.existingObject(with: savedIDs[2]) as? Chapter)
            return (book.author?.name, book.chapters.map(\.title), chapter.book?.objectID)
        }
        #expect(authorName == "New")
        #expect(chapterTitles == ["One"])
        #expect(chapterBook == savedIDs[1])
    }

    /// Context A deletes a book while B tags it and saves first. A's save conflicts and is
    /// rebased (by hand under the error policy, by the policy otherwise); the delete's nullify
    /// rule must then reach the tag B added too, or the store keeps a tag pointing at nothing.
    @Test(arguments: [MergePolicy.error, .mergeByPropertyObjectTrump, .overwrite])
    func aRebasedDeleteAppliesItsRuleToWhatTheOtherSaveAdded(_ policy: MergePolicy) async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        let (bookID, tagID) = try await backgroundContext(coordinator).perform { context in
            let book = try Book(context: context)
            book.title = "Doomed"
            let tag = try Tag(context: context)
            tag.label = "new"
            try context.save()
            return (book.objectID, tag.objectID)
        }
        let deleting = backgroundContext(coordinator)
        try await deleting.perform { context in
            context.mergePolicy = policy
            context.delete(try context.existingObject(with: bookID))
            context.processPendingChanges()
        }
        try await backgroundContext(coordinator).perform { context in
            let book = try #require(context.existingObject(with: bookID) as? Book)
            let tag = try #require(context.existingObject(with: tagID) as? Tag)
            book.tags.insert(tag)
            try context.save()
        }
        try await deleting.perform { context in
            if policy == .error {
                let error = try #require(throws: PersistenceError.self) { try context.save() }
                for id in error.objectIDs {
                    if let object = context.registeredObject(for: id) { context.refresh(object, mergeChanges: true) }
                }
            }
            try context.save()
        }
        let (bookGone, taggedBooks) = try await backgroundContext(coordinator).perform { context in
            let tag = try #require(context.existingObject(with: tagID) as? Tag)
            return ((try? context.existingObject(with: bookID)) == nil, tag.books.map(\.objectID))
        }
        #expect(bookGone)
        #expect(taggedBooks.isEmpty, "the tag still holds the deleted book")
    }

    /// Context A gives a book to an author while B retitles the book and saves first.
    /// Under the rollback policy A's change to the book is thrown away: the author it gave
    /// the book to must let it go too, or the store would hold an author listing a book that
    /// points elsewhere.
    @Test(arguments: StoreKind.queryable)
    func aRolledBackLinkIsUndoneOnTheOtherSide(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let (bookID, authorID) = try await backgroundContext(coordinator).perform { context in
            let book = try Book(context: context)
            book.title = "Draft"
            let author = try Author(context: context)
            author.name = "Austen"
            try context.save()
            return (book.objectID, author.objectID)
        }
        let rolling = backgroundContext(coordinator)
        try await rolling.perform { context in
            context.mergePolicy = .rollback
            let book = try #require(context.existingObject(with: bookID) as? Book)
            book.author = try #require(context.existingObject(with: authorID) as? Author)
        }
        try await backgroundContext(coordinator).perform { context in
            try #require(context.existingObject(with: bookID) as? Book).title = "Emma"
            try context.save()
        }
        try await rolling.perform { try $0.save() }
        let (title, author, books) = try await backgroundContext(coordinator).perform { context in
            let book = try #require(context.existingObject(with: bookID) as? Book)
            let author = try #require(context.existingObject(with: authorID) as? Author)
            return (book.title, book.author?.name, author.books.map(\.title))
        }
        #expect(title == "Emma")
        #expect(author == nil)
        #expect(books.isEmpty)
    }

    /// Two contexts under object trump change a book another save deletes. The first writes
    /// it back; the second then meets an object that exists again, and saves over it as an
    /// update rather than failing to insert it twice.
    @Test(arguments: StoreKind.queryable)
    func twoContextsWriteBackTheSameDeletedObject(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let id = try await backgroundContext(coordinator).perform { context in
            let book = try Book(context: context)
            book.title = "Draft"
            try context.save()
            return book.objectID
        }
        let first = backgroundContext(coordinator)
        let second = backgroundContext(coordinator)
        for (context, pages) in [(first, 10), (second, 20)] {
            try await context.perform { context in
                context.mergePolicy = .mergeByPropertyObjectTrump
                try #require(context.existingObject(with: id) as? Book).pages = pages
            }
        }
        try await backgroundContext(coordinator).perform { context in
            context.delete(try context.existingObject(with: id))
            try context.save()
        }
        try await first.perform { context in
            try #require(context.registeredObject(for: id) as? Book).title = "First"
            try context.save()
        }
        try await second.perform { try $0.save() }
        let stored = try await backgroundContext(coordinator).perform { context in
            let book = try #require(context.existingObject(with: id) as? Book)
            return "\(book.title) \(book.pages)"
        }
        #expect(stored == "First 20")
    }
}
