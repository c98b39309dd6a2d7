import Foundation
import Strata
import Testing

/// Core Data's `NSIgnorePersistentStoreVersioningOption` (issue 30, item 12): a store opens with
/// a model whose version hashes differ, read-write, without migrating. Strata's safeguard: an
/// atomic store, rewritten whole at each save, opens read-write only when the model keeps every
/// entity and stored property the store records; a SQLite store leaves the columns the model
/// does not know untouched.
@Suite struct ModelVersionSkipTests {
    /// Book(title, pages); `modifier` changes its hash alone; without `pages`, the model lacks it.
    static func model(modifier: String? = nil, pages: Bool = true) throws -> ManagedObjectModel {
        var book = EntityDescription("Book") {
            AttributeDescription("title", .string)
        }
        if pages { book.attributes.append(AttributeDescription("pages", .integer32, defaultValue: 0)) }
        book.versionHashModifier = modifier
        return try ManagedObjectModel { book }
    }

    static func open(_ url: URL, _ type: StoreType, _ model: ManagedObjectModel, skip: Bool = false, readOnly: Bool = false) async throws
        -> PersistentStoreCoordinator
    {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var options: [String: any Sendable] = [:]
        if skip { options[PersistentStoreOption.skipsModelVersionCheck] = true }
        if readOnly { options[PersistentStoreOption.readOnly] = true }
        try await coordinator.addPersistentStore(type: type, at: url, options: options)
        return coordinator
    }

    /// A store of `type` with one book, "Emma", 474 pages, written with the first model.
    static func store(_ type: StoreType, in directory: URL) async throws -> URL {
        let url = directory.appendingPathComponent("Books.\(type.rawValue.lowercased())")
        let coordinator = try await open(url, type, model())
        try await backgroundContext(coordinator).perform { context in
            let book = try context.insertNewObject(forEntityName: "Book")
            try book.setValue("Emma", forKey: "title")
            try book.setValue(474, forKey: "pages")
            try context.save()
        }
        try await coordinator.removePersistentStore(coordinator.persistentStores[0])
        return url
    }

    static func retitle(_ coordinator: PersistentStoreCoordinator) async throws {
        try await backgroundContext(coordinator).perform { context in
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Book"))[0].setValue("Emma (2nd ed.)", forKey: "title")
            try context.save()
        }
        try await coordinator.removePersistentStore(coordinator.persistentStores[0])
    }

    static func book(at url: URL, _ type: StoreType) async throws -> (String?, Int32?) {
        let coordinator = try await open(url, type, model())
        return try await backgroundContext(coordinator).perform { context in
            let book = try context.fetch(FetchRequest<ManagedObject>(entityName: "Book"))[0]
            return (try book.value(forKey: "title") as? String, try book.value(forKey: "pages") as? Int32)
        }
    }

    @Test(arguments: [StoreType.binary, .xml, .sqlite])
    func aModelOfOtherHashesOpensTheStoreReadWrite(_ type: StoreType) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await Self.store(type, in: directory)
        let other = try Self.model(modifier: "2")
        await #expect(throws: PersistenceError.self, "without the option, the hashes are checked") {
            _ = try await Self.open(url, type, other)
        }
        try await Self.retitle(try await Self.open(url, type, other, skip: true))
        let (title, pages) = try await Self.book(at: url, type)
        #expect(title == "Emma (2nd ed.)" && pages == 474, "the store keeps its hashes, and every value")
    }

    @Test(arguments: [StoreType.binary, .xml])
    func anAtomicStoreRefusesAModelThatWouldDropWhatItHolds(_ type: StoreType) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await Self.store(type, in: directory)
        let smaller = try Self.model(pages: false)
        let error = await #expect(throws: PersistenceError.self) { _ = try await Self.open(url, type, smaller, skip: true) }
        #expect(error?.code == .incompatibleStore)
        #expect(error?.message.contains("Book.pages") == true, "\(String(describing: error))")
        let readOnly = try await Self.open(url, type, smaller, skip: true, readOnly: true)
        let count = try await backgroundContext(readOnly).perform { try $0.count(for: FetchRequest<ManagedObject>(entityName: "Book")) }
        #expect(count == 1, "read-only it opens")
        try await readOnly.removePersistentStore(readOnly.persistentStores[0])
        #expect(try await Self.book(at: url, type).1 == 474, "the refused open let go of the file, and lost nothing")
    }

    @Test func aSQLiteStoreKeepsTheColumnsTheModelDoesNotKnow() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await Self.store(.sqlite, in: directory)
        try await Self.retitle(try await Self.open(url, .sqlite, Self.model(pages: false), skip: true))
        let (title, pages) = try await Self.book(at: url, .sqlite)
        #expect(title == "Emma (2nd ed.)" && pages == 474)
    }
}
