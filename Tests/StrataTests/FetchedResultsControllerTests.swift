import Foundation
@testable import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// Core Data's `NSFetchedResultsController` (issue 32), as its documentation describes it: a
/// request with sort descriptors whose first sorts by the section key; `fetchedObjects`,
/// `sections`, `object(at:)`, `indexPath(forObject:)`; and a delegate told of every change to
/// the result, with deletions at their index paths before the change and insertions and moves
/// at theirs after it.
@Suite struct FetchedResultsControllerTests {
    /// Records what a controller tells, and replays it on the sections it had, as a table view
    /// applies a batch of updates.
    final class Recorder: FetchedResultsControllerDelegate {
        typealias Result = Book
        typealias ObjectEvent = (type: FetchedResultsChangeType, object: Book, old: IndexPath?, new: IndexPath?)
        typealias SectionEvent = (type: FetchedResultsChangeType, index: Int, name: String)
        /// What each change of the result told, between `controllerWillChangeContent` and
        /// `controllerDidChangeContent`: index paths count within one batch.
        var batches: [(objects: [ObjectEvent], sections: [SectionEvent])] = []
        var willChange = 0
        var didChange = 0

        var events: [ObjectEvent] { batches.flatMap(\.objects) }
        var sectionEvents: [SectionEvent] { batches.flatMap(\.sections) }

        func controllerWillChangeContent(_ controller: FetchedResultsController<Book>) {
            willChange += 1
            batches.append(([], []))
        }
        func controllerDidChangeContent(_ controller: FetchedResultsController<Book>) { didChange += 1 }
        func controller(
            _ controller: FetchedResultsController<Book>, didChange object: Book, at indexPath: IndexPath?, for type: FetchedResultsChangeType,
            newIndexPath: IndexPath?
        ) {
            batches[batches.count - 1].objects.append((type, object, indexPath, newIndexPath))
        }
        func controller(
            _ controller: FetchedResultsController<Book>, didChange sectionInfo: FetchedResultsSectionInfo<Book>, atSectionIndex sectionIndex: Int,
            for type: FetchedResultsChangeType
        ) {
            batches[batches.count - 1].sections.append((type, sectionIndex, sectionInfo.name))
        }

        func reset() {
            batches = []
        }

        /// `sections` (names and objects) with the recorded changes applied, batch by batch, as
        /// UIKit applies each batch: removals at old index paths (descending), then insertions
        /// at new ones (ascending).
        func replay(on sections: [(name: String, objects: [ObjectIdentifier])]) -> [(name: String, objects: [ObjectIdentifier])] {
            var sections = sections
            for batch in batches {
                let removals = batch.objects.filter { $0.type == .delete || $0.type == .move }.compactMap(\.old)
                for path in removals.sorted(by: >) { sections[path[0]].objects.remove(at: path[1]) }
                for event in batch.sections.filter({ $0.type == .delete }).sorted(by: { $0.index > $1.index }) {
                    sections.remove(at: event.index)
                }
                for event in batch.sections.filter({ $0.type == .insert }).sorted(by: { $0.index < $1.index }) {
                    sections.insert((event.name, []), at: event.index)
                }
                let insertions = batch.objects.filter { $0.type == .insert || $0.type == .move }.compactMap { event in event.new.map { ($0, event.object) } }
                for (path, object) in insertions.sorted(by: { $0.0 < $1.0 }) {
                    sections[path[0]].objects.insert(ObjectIdentifier(object), at: path[1])
                }
            }
            return sections
        }
    }

    static func layout(_ controller: FetchedResultsController<Book>) -> [(name: String, objects: [ObjectIdentifier])] {
        (controller.sections ?? []).map { ($0.name, $0.objects.map(ObjectIdentifier.init)) }
    }

    static func titles(_ controller: FetchedResultsController<Book>) -> [String] {
        (controller.fetchedObjects ?? []).map(\.title)
    }

    static let kinds: [StoreKind] = [.inMemory, .binary, .sqlite] + (PostgresTestServer.isAvailable ? [.postgres] : [])

    /// Three authors and five books.
    static func library(_ kind: StoreKind) async throws -> PersistentStoreCoordinator {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        try await backgroundContext(coordinator).perform { context in
            for (name, titles) in [("Austen", ["Emma", "Persuasion"]), ("Brontë", ["Villette"]), ("Eliot", ["Middlemarch", "Romola"])] {
                let author = try Author(context: context)
                author.name = name
                for title in titles {
                    let book = try Book(context: context)
                    book.title = title
                    book.pages = title.count * 100
                    book.author = author
                }
            }
            try context.save()
        }
        return coordinator
    }

    @Test func aRequestWithoutSortDescriptorsOrWithTheSectionKeyElsewhereIsRefusedBeforeAnyFetch() async throws {
        let coordinator = try await Self.library(.inMemory)
        try await backgroundContext(coordinator).perform { context in
            let unsorted = FetchedResultsController(
                fetchRequest: FetchRequest<Book>(), managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            let error = #expect(throws: PersistenceError.self) { try unsorted.performFetch() }
            #expect(error?.code == .unsupportedRequest)
            #expect(unsorted.fetchedObjects == nil)

            let misordered = FetchedResultsController(
                fetchRequest: FetchRequest<Book>(sortDescriptors: [.ascending("title"), .ascending("author.name")]), managedObjectContext: context,
                sectionNameKeyPath: "author.name", cacheName: nil)
            #expect(throws: PersistenceError.self) { try misordered.performFetch() }

            let unknown = FetchedResultsController(
                fetchRequest: FetchRequest<Book>(sortDescriptors: [.ascending("shelf")]), managedObjectContext: context, sectionNameKeyPath: "shelf",
                cacheName: nil)
            #expect(throws: FetchPredicateError.self) { try unknown.performFetch() }
        }
    }

    @Test(arguments: kinds)
    func theResultComesInSectionsInOrder(_ kind: StoreKind) async throws {
        let coordinator = try await Self.library(kind)
        try await backgroundContext(coordinator).perform { context in
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<Book>(sortDescriptors: [.ascending("author.name"), .descending("title")]), managedObjectContext: context,
                sectionNameKeyPath: "author.name", cacheName: "Books")
            try controller.performFetch()
            #expect(Self.titles(controller) == ["Persuasion", "Emma", "Villette", "Romola", "Middlemarch"])
            let sections = try #require(controller.sections)
            #expect(sections.map(\.name) == ["Austen", "Brontë", "Eliot"])
            #expect(sections.map(\.numberOfObjects) == [2, 1, 2])
            #expect(sections[2].objects.map(\.title) == ["Romola", "Middlemarch"])
            #expect(controller.sectionIndexTitles == ["A", "B", "E"])
            #expect(controller.section(forSectionIndexTitle: "E", at: 2) == 2)
            let romola = controller.object(at: IndexPath(item: 0, section: 2))
            #expect(romola.title == "Romola")
            #expect(controller.indexPath(forObject: romola) == IndexPath(item: 0, section: 2))
            #expect(controller.snapshot.sectionIdentifiers == ["Austen", "Brontë", "Eliot"])
            #expect(controller.snapshot.itemIdentifiers(inSection: "Eliot") == sections[2].objects.map(\.objectID))
        }
    }

    /// The context's own changes, told when it processes pending changes: a title change is a
    /// move, a deletion empties a section (which goes), an insertion makes one.
    @Test(arguments: kinds)
    func theContextsOwnChangesAreTold(_ kind: StoreKind) async throws {
        let coordinator = try await Self.library(kind)
        try await backgroundContext(coordinator).perform { context in
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<Book>(sortDescriptors: [.ascending("author.name"), .ascending("title")]), managedObjectContext: context,
                sectionNameKeyPath: "author.name", cacheName: nil)
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            var before = Self.layout(controller)

            let emma = controller.object(at: IndexPath(item: 0, section: 0))
            emma.title = "Zuleika"
            context.processPendingChanges()
            #expect(recorder.events.map(\.type) == [.move])
            #expect(recorder.events.first?.old == IndexPath(item: 0, section: 0))
            #expect(recorder.events.first?.new == IndexPath(item: 1, section: 0))
            #expect(Self.titles(controller) == ["Persuasion", "Zuleika", "Villette", "Middlemarch", "Romola"])
            #expect(recorder.replay(on: before).map(\.objects) == Self.layout(controller).map(\.objects))
            #expect((recorder.willChange, recorder.didChange) == (1, 1))

            before = Self.layout(controller)
            recorder.reset()
            context.delete(controller.object(at: IndexPath(item: 0, section: 1)))  // Villette, Brontë's only book
            let dickens = try Author(context: context)
            dickens.name = "Dickens"
            let book = try Book(context: context)
            book.title = "Bleak House"
            book.author = dickens
            context.processPendingChanges()
            #expect(recorder.sectionEvents.map(\.type) == [.delete, .insert])
            #expect(recorder.sectionEvents.map(\.name) == ["Brontë", "Dickens"])
            #expect(Set(recorder.events.map(\.type)) == [.delete, .insert])
            #expect(controller.sections?.map(\.name) == ["Austen", "Dickens", "Eliot"])
            let replayed = recorder.replay(on: before)
            #expect(replayed.map(\.name) == ["Austen", "Dickens", "Eliot"])
            #expect(replayed.map(\.objects) == Self.layout(controller).map(\.objects))

            recorder.reset()
            book.pages = 900
            context.processPendingChanges()
            #expect(recorder.events.map(\.type) == [.update], "a change that moves nothing is an update")
            try context.save()
            #expect(controller.fetchedObjects?.contains { $0.objectID.isTemporaryID } == false)
            let fresh = try context.fetch(controller.fetchRequest)
            #expect(controller.fetchedObjects?.map(ObjectIdentifier.init) == fresh.map(ObjectIdentifier.init))
        }
    }

    /// A delegate that takes snapshots (Core Data's `controller(_:didChangeContentWith:)`) is
    /// told by that method alone, as in Core Data; objects whose section key is `nil` are in a
    /// section named `""`.
    @Test(arguments: kinds)
    func aSnapshotDelegateIsToldBySnapshotsAlone(_ kind: StoreKind) async throws {
        final class Snapshots: FetchedResultsControllerSnapshotDelegate {
            typealias Result = Book
            var snapshots: [FetchedResultsSnapshot] = []
            var otherCalls = 0
            func controllerWillChangeContent(_ controller: FetchedResultsController<Book>) { otherCalls += 1 }
            func controller(_ controller: FetchedResultsController<Book>, didChangeContentWith snapshot: FetchedResultsSnapshot) {
                snapshots.append(snapshot)
            }
        }
        let coordinator = try await Self.library(kind)
        try await backgroundContext(coordinator).perform { context in
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<Book>(sortDescriptors: [.ascending("author.name"), .ascending("title")]), managedObjectContext: context,
                sectionNameKeyPath: "author.name", cacheName: nil)
            let delegate = Snapshots()
            controller.delegate = delegate
            try controller.performFetch()
            let orphan = try Book(context: context)
            orphan.title = "Anonymous"
            context.processPendingChanges()
            #expect(delegate.otherCalls == 0)
            let snapshot = try #require(delegate.snapshots.last)
            #expect(delegate.snapshots.count == 1)
            #expect(snapshot.sectionIdentifiers == ["", "Austen", "Brontë", "Eliot"], "no author: the section named \"\"")
            #expect(snapshot.itemIdentifiers(inSection: "") == [orphan.objectID])
            #expect(snapshot.itemIdentifiers == controller.fetchedObjects?.map(\.objectID))
        }
    }

    /// An update that takes an object across the predicate is an insertion or a deletion.
    @Test(arguments: kinds)
    func crossingThePredicateIsAnInsertionOrADeletion(_ kind: StoreKind) async throws {
        let coordinator = try await Self.library(kind)
        try await backgroundContext(coordinator).perform { context in
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<Book>(predicate: try FetchPredicate(format: "pages > 600"), sortDescriptors: [.ascending("title")]),
                managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            #expect(Self.titles(controller) == ["Middlemarch", "Persuasion", "Villette"])
            let books = try context.fetch(FetchRequest<Book>(sortDescriptors: [.ascending("title")]))
            books[0].pages = 100  // Emma: was out, stays out
            books[1].pages = 100  // Middlemarch: leaves
            books[4].pages = 1000  // Villette: stays, changed
            books[3].pages = 700  // Romola: joins
            context.processPendingChanges()
            #expect(Self.titles(controller) == ["Persuasion", "Romola", "Villette"])
            let told = Dictionary(uniqueKeysWithValues: recorder.events.map { ($0.object.title, $0.type) })
            #expect(told == ["Middlemarch": .delete, "Romola": .insert, "Villette": .update])
        }
    }

    /// Another context's save, merged, reaches the controller: inserted objects join, deleted
    /// ones leave, and an object the context never held that now matches joins.
    @Test(arguments: kinds)
    func mergedSavesOfOtherContextsAreTold(_ kind: StoreKind) async throws {
        let coordinator = try await Self.library(kind)
        try await backgroundContext(coordinator).perform { context in
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<Book>(predicate: try FetchPredicate(format: "pages >= 500"), sortDescriptors: [.ascending("title")]),
                managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            #expect(Self.titles(controller) == ["Middlemarch", "Persuasion", "Romola", "Villette"])
            let before = Self.layout(controller)

            let changes = try backgroundContext(coordinator).performAndWait { other in
                let books = try other.fetch(FetchRequest<Book>(sortDescriptors: [.ascending("title")]))
                let deronda = try Book(context: other)
                deronda.title = "Daniel Deronda"
                deronda.pages = 800
                books[0].pages = 5000  // Emma, which the controller's context never held
                other.delete(books[1])  // Middlemarch
                try other.save()
                return ObjectIDChanges(inserted: [deronda.objectID], updated: [books[0].objectID], deleted: [books[1].objectID])
            }
            context.mergeChanges(fromRemoteContextSave: changes)
            context.processPendingChanges()
            #expect(Self.titles(controller) == ["Daniel Deronda", "Emma", "Persuasion", "Romola", "Villette"])
            let told = Dictionary(recorder.events.map { ($0.object.objectID, $0.type) }, uniquingKeysWith: { first, _ in first })
            #expect(told == [changes.insertedObjectIDs.first!: .insert, changes.updatedObjectIDs.first!: .insert, changes.deletedObjectIDs.first!: .delete])
            #expect(recorder.replay(on: before).map(\.objects) == Self.layout(controller).map(\.objects))
        }
    }

    /// Batch requests change the store without the context; Core Data's documentation has
    /// their object IDs merged (`mergeChanges(fromRemoteContextSave:into:)`), and the merge
    /// reaches the controller as a save's would: a batch update that changes a sort key is a
    /// move, a batch delete a deletion, a batch insert an insertion.
    @Test(arguments: kinds)
    func mergedBatchRequestsAreTold(_ kind: StoreKind) async throws {
        let coordinator = try await Self.library(kind)
        try await backgroundContext(coordinator).perform { context in
            let request = FetchRequest<Book>(sortDescriptors: [.ascending("pages")])
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            #expect(Self.titles(controller) == ["Emma", "Romola", "Villette", "Persuasion", "Middlemarch"])
            let before = Self.layout(controller)

            let changes = try backgroundContext(coordinator).performAndWait { other in
                var update = BatchUpdateRequest(entityName: "Book", predicate: try FetchPredicate(format: "title == 'Emma'"))
                update.propertiesToUpdate = ["pages": .constant(2_000)]
                update.resultType = .objectIDs
                var delete = BatchDeleteRequest(entityName: "Book", predicate: try FetchPredicate(format: "title == 'Romola'"))
                delete.resultType = .objectIDs
                var insert = BatchInsertRequest(entityName: "Book", objects: [["title": "Sanditon", "pages": 100]])
                insert.resultType = .objectIDs
                return ObjectIDChanges(
                    inserted: Set(try other.execute(insert).objectIDs ?? []), updated: Set(try other.execute(update).objectIDs ?? []),
                    deleted: Set(try other.execute(delete).objectIDs ?? []))
            }
            #expect(changes.insertedObjectIDs.count == 1 && changes.updatedObjectIDs.count == 1 && changes.deletedObjectIDs.count == 1)
            context.mergeChanges(fromRemoteContextSave: changes)
            context.processPendingChanges()
            #expect(Self.titles(controller) == ["Sanditon", "Villette", "Persuasion", "Middlemarch", "Emma"])
            #expect(controller.fetchedObjects?.map(ObjectIdentifier.init) == (try context.fetch(request)).map(ObjectIdentifier.init))
            let told = Dictionary(recorder.events.map { ($0.object.title, $0.type) }, uniquingKeysWith: { first, _ in first })
            #expect(told == ["Sanditon": .insert, "Emma": .move, "Romola": .delete])
            #expect(recorder.replay(on: before).map(\.objects) == Self.layout(controller).map(\.objects))
        }
    }

    /// Sort descriptors with options, as `NSSortDescriptor(key:ascending:selector:
    /// #selector(NSString.caseInsensitiveCompare(_:)))` gives: the controller keeps the
    /// result in the order they give (not by code points) through changes, sectioned by the
    /// key they sort.
    @Test(arguments: kinds)
    func caseInsensitiveSortsKeepTheirOrder(_ kind: StoreKind) async throws {
        let coordinator = try await Self.library(kind)
        try await backgroundContext(coordinator).perform { context in
            for title in ["apple pie", "zebra"] { try Book(context: context).title = title }
            try context.save()
            let request = FetchRequest<Book>(sortDescriptors: [.ascending("title", options: [.caseInsensitive])])
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "title", cacheName: nil)
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            #expect(Self.titles(controller) == ["apple pie", "Emma", "Middlemarch", "Persuasion", "Romola", "Villette", "zebra"])
            let before = Self.layout(controller)

            let books = try context.fetch(FetchRequest<Book>())
            try #require(books.first { $0.title == "Villette" }).title = "banana bread"
            try Book(context: context).title = "middle C"
            try Book(context: context).title = "Zanzibar"
            context.processPendingChanges()
            let expected = ["apple pie", "banana bread", "Emma", "middle C", "Middlemarch", "Persuasion", "Romola", "Zanzibar", "zebra"]
            #expect(Self.titles(controller) == expected)
            #expect(controller.sections?.map(\.name) == expected)
            #expect(controller.fetchedObjects?.map(ObjectIdentifier.init) == (try context.fetch(request)).map(ObjectIdentifier.init))
            #expect(recorder.replay(on: before).map(\.name) == Self.layout(controller).map(\.name))
            #expect(recorder.replay(on: before).map(\.objects) == Self.layout(controller).map(\.objects))
        }
    }

    /// An object a merge inserts may be registered already: an earlier merge that read a later
    /// generation followed a relationship to it (here, refreshing an author with unsaved changes
    /// brings the book another save gave it). The controller still hears of it at its insert.
    /// (Found by the stress suite's watcher.)
    @Test(arguments: kinds)
    func anInsertedObjectTheContextHeldAlreadyJoins(_ kind: StoreKind) async throws {
        let coordinator = try await Self.library(kind)
        try await backgroundContext(coordinator).perform { context in
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<Book>(sortDescriptors: [.ascending("title")]), managedObjectContext: context, sectionNameKeyPath: nil,
                cacheName: nil)
            try controller.performFetch()
            let austen = try #require(try context.fetch(FetchRequest<Author>(predicate: try FetchPredicate(format: "name == 'Austen'"))).first)
            austen.born = Date(timeIntervalSince1970: 0)  // an unsaved change: a refresh merges onto it
            let authorID = austen.objectID
            let (updated, inserted) = try backgroundContext(coordinator).performAndWait { other in
                let author = try #require(try other.existingObject(with: authorID) as? Author)
                author.name = "Jane Austen"
                try other.save()
                let book = try Book(context: other)
                book.title = "Sanditon"
                book.author = author
                try other.save()
                return (author.objectID, book.objectID)
            }
            context.mergeChanges(fromRemoteContextSave: ObjectIDChanges(updated: [updated]))
            context.processPendingChanges()
            // The refreshed author's books are a relationship fault of the later generation:
            // using them registers the new book (on the SQL stores; the others' rows hold them).
            #expect(austen.books.contains { $0.objectID == inserted })
            #expect(context.registeredObject(for: inserted) != nil, "the refresh of the author reached the book")
            context.mergeChanges(fromRemoteContextSave: ObjectIDChanges(inserted: [inserted], updated: [updated]))
            context.processPendingChanges()
            #expect(Self.titles(controller) == ["Emma", "Middlemarch", "Persuasion", "Romola", "Sanditon", "Villette"])
        }
    }

    /// A reset is told as a reload: every object leaves, the context's new ones for the same
    /// IDs join.
    @Test(arguments: kinds)
    func aResetIsAReload(_ kind: StoreKind) async throws {
        let coordinator = try await Self.library(kind)
        try await backgroundContext(coordinator).perform { context in
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<Book>(sortDescriptors: [.ascending("title")]), managedObjectContext: context, sectionNameKeyPath: nil,
                cacheName: nil)
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            let old = controller.fetchedObjects ?? []
            context.reset()
            #expect(recorder.events.filter { $0.type == .delete }.count == 5)
            #expect(recorder.events.filter { $0.type == .insert }.count == 5)
            let new = controller.fetchedObjects ?? []
            #expect(new.map(\.objectID) == old.map(\.objectID))
            #expect(zip(new, old).allSatisfy { $0 !== $1 }, "the context's objects after the reset")
            #expect(new.map(\.title) == ["Emma", "Middlemarch", "Persuasion", "Romola", "Villette"])
        }
    }

    /// A refresh brings another context's saved values in (Core Data's
    /// `refresh(_:mergeChanges:)`), and the controller follows them.
    @Test(arguments: kinds)
    func aRefreshedObjectIsFollowed(_ kind: StoreKind) async throws {
        let coordinator = try await Self.library(kind)
        try await backgroundContext(coordinator).perform { context in
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<Book>(sortDescriptors: [.ascending("title")]), managedObjectContext: context, sectionNameKeyPath: nil,
                cacheName: nil)
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            let emma = try #require(controller.fetchedObjects?.first)
            let id = emma.objectID
            try backgroundContext(coordinator).performAndWait { other in
                try #require(try other.existingObject(with: id) as? Book).title = "Zuleika"
                try other.save()
            }
            #expect(Self.titles(controller).first == "Emma", "not merged yet")
            context.refresh(emma, mergeChanges: false)
            #expect(Self.titles(controller) == ["Middlemarch", "Persuasion", "Romola", "Villette", "Zuleika"])
            #expect(recorder.events.map(\.type) == [.move])
        }
    }

    /// A change to another object that a sort key reads through a relationship moves the
    /// objects that read it (an author renamed moves their books to another section).
    @Test(arguments: kinds)
    func aChangeReadThroughARelationshipIsFollowed(_ kind: StoreKind) async throws {
        let coordinator = try await Self.library(kind)
        try await backgroundContext(coordinator).perform { context in
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<Book>(sortDescriptors: [.ascending("author.name"), .ascending("title")]), managedObjectContext: context,
                sectionNameKeyPath: "author.name", cacheName: nil)
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            let before = Self.layout(controller)
            let austen = try #require(controller.object(at: IndexPath(item: 0, section: 0)).author)
            austen.name = "Woolf"
            context.processPendingChanges()
            #expect(controller.sections?.map(\.name) == ["Brontë", "Eliot", "Woolf"])
            #expect(Self.titles(controller) == ["Villette", "Middlemarch", "Romola", "Emma", "Persuasion"])
            let replayed = recorder.replay(on: before)
            #expect(replayed.map(\.name) == ["Brontë", "Eliot", "Woolf"])
            #expect(replayed.map(\.objects) == Self.layout(controller).map(\.objects))
        }
    }

    /// Random inserts, updates, deletes and saves: after each round the controller's result is
    /// a fresh fetch's, and what it told, replayed on what it had, gives what it has.
    @Test(arguments: kinds)
    func randomChangesKeepTheResultAFreshFetchs(_ kind: StoreKind) async throws {
        let coordinator = try await Self.library(kind)
        try await backgroundContext(coordinator).perform { context in
            let request = FetchRequest<Book>(
                predicate: try FetchPredicate(format: "pages >= 300"), sortDescriptors: [.ascending("pages"), .descending("title")])
            try Self.playRandomRounds(60, of: request, in: context, pages: 1...9, seed: 0x5EED_F00D)
        }
    }

    /// The same with hundreds of sections (a section per page count), so that the sections'
    /// chunks split and empty as sections come and go.
    @Test func randomChangesAcrossHundredsOfSections() async throws {
        let coordinator = try await Self.library(.inMemory)
        try await backgroundContext(coordinator).perform { context in
            var random = SplitMix64(seed: 0xB16_5EC7)
            for index in 0..<600 {
                let book = try Book(context: context)
                book.title = "Seed \(index)"
                book.pages = Int.random(in: 1...400, using: &random) * 100
            }
            try context.save()
            let request = FetchRequest<Book>(sortDescriptors: [.descending("pages"), .ascending("title")])
            try Self.playRandomRounds(150, of: request, in: context, pages: 1...400, seed: 0x5EC7_1045)
        }
    }

    /// Plays `rounds` rounds of one to four random changes (books of `pages` × 100 pages)
    /// under a controller sectioned by pages, checking it after each against a fresh fetch and
    /// a replay of what it told. Titles are unique: Core Data leaves the order of objects whose
    /// sort keys are all equal unspecified, so a fresh fetch may order ties its own way.
    static func playRandomRounds(
        _ rounds: Int, of request: FetchRequest<Book>, in context: isolated ManagedObjectContext, pages: ClosedRange<Int>, seed: UInt64
    ) throws {
        var random = SplitMix64(seed: seed)
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "pages", cacheName: nil)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        for round in 0..<rounds {
            let before = Self.layout(controller)
            recorder.reset()
            let books = try context.fetch(FetchRequest<Book>())
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<3:
                    let book = try Book(context: context)
                    book.title = "Book \(round).\(books.count).\(Int.random(in: 0..<1_000_000, using: &random))"
                    book.pages = Int.random(in: pages, using: &random) * 100
                case 3..<7 where !books.isEmpty:
                    let book = books[Int.random(in: 0..<books.count, using: &random)]
                    if Bool.random(using: &random) { book.pages = Int.random(in: pages, using: &random) * 100 } else { book.title += "!" }
                case 7..<9 where !books.isEmpty:
                    context.delete(books[Int.random(in: 0..<books.count, using: &random)])
                default:
                    try context.save()
                }
            }
            context.processPendingChanges()
            let fresh = try context.fetch(request)
            #expect(controller.fetchedObjects?.map(ObjectIdentifier.init) == fresh.map(ObjectIdentifier.init), "round \(round)")
            let replayed = recorder.replay(on: before)
            #expect(replayed.map(\.name) == Self.layout(controller).map(\.name), "round \(round)")
            #expect(replayed.map(\.objects) == Self.layout(controller).map(\.objects), "round \(round)")
            // Every object is where the controller says, both ways.
            for (section, info) in (controller.sections ?? []).enumerated() {
                for (item, book) in info.objects.enumerated() {
                    #expect(controller.indexPath(forObject: book) == IndexPath(indexes: [section, item]))
                    #expect(controller.object(at: IndexPath(indexes: [section, item])) === book)
                }
            }
        }
    }
}
