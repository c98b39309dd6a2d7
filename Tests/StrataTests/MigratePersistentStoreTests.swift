import Foundation
@testable import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// `migratePersistentStore(_:to:options:type:)` (issue 33; Core Data's documentation: "Moves
/// a persistent store to a new location, changing the storage type if necessary"): every
/// object, value and link arrives in the new store, which takes the old one's place; the old
/// store is left as it was; nothing is written over a store already there.
@Suite struct MigratePersistentStoreTests {
    static let pairs: [(StoreKind, StoreKind)] =
        [(.binary, .sqlite), (.sqlite, .binary), (.sqlite, .xml), (.xml, .sqlite), (.inMemory, .sqlite)]
        + (PostgresTestServer.isAvailable ? [(.sqlite, .postgres), (.postgres, .binary)] : [])

    static func url(_ kind: StoreKind, in directory: URL, _ name: String) async throws -> URL {
        kind == .postgres ? try await PostgresTestServer.newStoreURL() : directory.appendingPathComponent("\(name).\(kind.rawValue)")
    }

    /// Authors with books, chapters in order, tags shared between books, and a passport.
    static func fill(_ coordinator: PersistentStoreCoordinator) async throws {
        try await backgroundContext(coordinator).perform { context in
            let classics = try Tag(context: context)
            classics.label = "classics"
            let letters = try Tag(context: context)
            letters.label = "letters"
            for (name, titles) in [("Austen", ["Emma", "Persuasion"]), ("Eliot", ["Middlemarch"])] {
                let author = try Author(context: context)
                author.name = name
                author.born = Date(timeIntervalSince1970: Double(name.count) * 1e8)
                for title in titles {
                    let book = try Book(context: context)
                    book.title = title
                    book.pages = title.count * 100
                    book.author = author
                    book.tags = title == "Persuasion" ? [classics, letters] : [classics]
                    for number in (1...3).reversed() {
                        let chapter = try Chapter(context: context)
                        chapter.title = "\(title) \(number)"
                        chapter.book = book
                    }
                }
            }
            let passport = try Passport(context: context)
            passport.number = "P-1775"
            passport.holder = try context.fetch(FetchRequest<Author>(predicate: try FetchPredicate(format: "name == 'Austen'"))).first
            try context.save()
        }
    }

    /// Everything the library holds, as text.
    static func contents(_ coordinator: PersistentStoreCoordinator) async throws -> [String] {
        try await backgroundContext(coordinator).perform { context in
            try context.fetch(FetchRequest<Author>(sortDescriptors: [.ascending("name")])).map { author in
                let books = author.books.sorted { $0.title < $1.title }.map { book in
                    "\(book.title) \(book.pages)p [\(book.chapters.map(\.title).joined(separator: ", "))] {\(book.tags.map(\.label).sorted().joined(separator: ","))}"
                }
                return "\(author.name) \(author.born.map { "\($0.timeIntervalSince1970)" } ?? "-") \(author.passport?.number ?? "-"): \(books.joined(separator: "; "))"
            } + [try "\(context.count(for: FetchRequest<Tag>())) tags, \(context.count(for: FetchRequest<Chapter>())) chapters"]
        }
    }

    @Test(arguments: pairs)
    func everyObjectValueAndLinkArrives(_ from: StoreKind, _ to: StoreKind) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        PostgresStore.register()
        let sourceURL = from == .inMemory ? nil : try await Self.url(from, in: directory, "Source")
        let source = try await coordinator.addPersistentStore(type: from.type, at: sourceURL)
        try await Self.fill(coordinator)
        let before = try await Self.contents(coordinator)
        #expect(before.count == 3)

        let destinationURL = try await Self.url(to, in: directory, "Destination")
        let moved = try await coordinator.migratePersistentStore(source, to: destinationURL, type: to.type)
        #expect(coordinator.persistentStores.count == 1 && coordinator.persistentStores.first === moved)
        #expect(moved.type == to.type)
        #expect(try await Self.contents(coordinator) == before)

        // A new coordinator reads the same from the new store (an atomic store is one
        // coordinator's at a time); the old one is as it was.
        try await coordinator.removePersistentStore(moved)
        let reopened = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        try await reopened.addPersistentStore(type: to.type, at: destinationURL)
        #expect(try await Self.contents(reopened) == before)
        if let sourceURL {
            let old = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
            try await old.addPersistentStore(type: from.type, at: sourceURL)
            #expect(try await Self.contents(old) == before)
        }
    }

    /// A store already at the destination is never written over; a store of another
    /// coordinator is refused.
    @Test func aStoreAtTheDestinationIsKept() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let source = try await coordinator.addPersistentStore(type: .binary, at: directory.appendingPathComponent("Source.binary"))
        try await Self.fill(coordinator)
        let occupied = directory.appendingPathComponent("Occupied.sqlite")
        let other = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let otherStore = try await other.addPersistentStore(type: .sqlite, at: occupied)
        try await backgroundContext(other).perform { context in
            try Tag(context: context).label = "mine"
            try context.save()
        }
        let error = await #expect(throws: PersistenceError.self) {
            try await coordinator.migratePersistentStore(source, to: occupied, type: .sqlite)
        }
        #expect(error?.code == .storeExists)
        #expect(coordinator.persistentStores.first === source)
        let labels = try await backgroundContext(other).perform { context in try context.fetch(FetchRequest<Tag>()).map(\.label) }
        #expect(labels == ["mine"])
        let foreign = await #expect(throws: PersistenceError.self) {
            try await coordinator.migratePersistentStore(otherStore, to: directory.appendingPathComponent("New.sqlite"), type: .sqlite)
        }
        #expect(foreign?.code == .storeNotFound)
    }

    /// Externally stored data arrives as its bytes, kept by the new store as it keeps them.
    @Test func externallyStoredDataArrivesAsItsBytes() async throws {
        let (directory, store, _, _) = try await ExternalDataTests.storeWithExternalImage(writingFile: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ExternalDataTests.model())
        let source = try await coordinator.addPersistentStore(type: .sqlite, at: store)
        try await coordinator.migratePersistentStore(source, to: directory.appendingPathComponent("Photos.binary"), type: .binary)
        let (caption, image) = try await backgroundContext(coordinator).perform { context in
            let photo = try #require(try context.fetch(FetchRequest<ExternalDataTests.Photo>()).first)
            return (photo.caption, photo.image)
        }
        #expect(caption == "harbour")
        #expect(image == Data(repeating: 0xAB, count: 200_000))
    }
}
