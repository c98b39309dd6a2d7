import Foundation
@testable import Strata
import Testing

/// The binary store's own promises: locking, damage detection, a documented header.
@Suite struct BinaryStoreTests {
    /// A saved library store with a few objects of every relationship kind; returns its URL.
    static func savedStore(in directory: URL) async throws -> URL {
        let url = directory.appendingPathComponent("Library.store")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let store = try await coordinator.addPersistentStore(type: .binary, at: url)
        try await backgroundContext(coordinator).perform { context in
            for index in 0..<20 {
                let author = try Author(context: context)
                author.name = "Author \(index)"
                let book = try Book(context: context)
                book.title = "Book \(index)"
                book.pages = index * 10
                book.author = author
                let chapter = try Chapter(context: context)
                chapter.title = "Chapter \(index)"
                book.chapters = [chapter]
            }
            try context.save()
        }
        try await coordinator.removePersistentStore(store)
        return url
    }

    @Test func theFileStartsWithTheDocumentedHeader() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = [UInt8](try Data(contentsOf: try await Self.savedStore(in: directory)))
        #expect(Array(bytes.prefix(16)) == [0x89, 0x53, 0x54, 0x52, 0x41, 0x54, 0x41, 0x0A, 1, 0, 0, 0, 0, 0, 0, 0])
        // The first record is an LZ4 frame (magic 0x184D2204, little-endian) after its length.
        #expect(Array(bytes[20..<24]) == [0x04, 0x22, 0x4D, 0x18])
    }

    @Test func aSecondWriterIsRefusedWhileTheStoreIsOpen() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await Self.savedStore(in: directory)
        let first = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let store = try await first.addPersistentStore(type: .binary, at: url)
        let second = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let error = await #expect(throws: StoreError.self) { try await second.addPersistentStore(type: .binary, at: url) }
        #expect(error?.code == .storeInUse)
        #expect(error?.message == "the store is in use: another coordinator (in this process or another) has it open for writing")
        // Saving moves the lock to the new file: still refused after a save.
        try await backgroundContext(first).perform { context in
            let tag = try Tag(context: context)
            tag.label = "x"
            try context.save()
        }
        await #expect(throws: StoreError.self) { try await second.addPersistentStore(type: .binary, at: url) }
        try await first.removePersistentStore(store)
        try await second.addPersistentStore(type: .binary, at: url)
    }

    @Test func headerDamageIsNamed() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await Self.savedStore(in: directory)
        let original = try Data(contentsOf: url)

        var foreign = original
        foreign[1] = UInt8(ascii: "X")
        try foreign.write(to: url)
        #expect(throws: StoreError(.notAStore, file: url, offset: 0, "this is not a Strata binary store (its first bytes are wrong)")) {
            try BinaryStore.metadataForPersistentStore(at: url)
        }

        var newer = original
        newer[8] = 3
        try newer.write(to: url)
        let error = #expect(throws: StoreError.self) { try BinaryStore.metadataForPersistentStore(at: url) }
        #expect(error?.code == .newerFormat)
        #expect(error?.message == "the store is in format version 3; this Strata reads versions up to 2")

        var huge = original
        huge.replaceSubrange(16..<20, with: [0xFF, 0xFF, 0xFF, 0x7F])
        try huge.write(to: url)
        let claim = #expect(throws: StoreError.self) { try BinaryStore.metadataForPersistentStore(at: url) }
        #expect(claim?.code == .corruptFile)
        #expect(claim?.message == "a record claims 2147483647 bytes")
    }

    @Test func aTextFileIsNotAStore() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("notes.txt")
        try Data("hello, this is not a store\n".utf8).write(to: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let error = await #expect(throws: StoreError.self) { try await coordinator.addPersistentStore(type: .binary, at: url) }
        #expect(error?.code == .notAStore)
        #expect(try Data(contentsOf: url) == Data("hello, this is not a store\n".utf8), "the file is left as it was")
    }

    /// Truncating the file anywhere gives a typed error, and never loads part of a store.
    @Test func everyTruncationIsDetected() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await Self.savedStore(in: directory)
        let original = try Data(contentsOf: url)
        let offsets = Array(stride(from: 1, to: original.count, by: max(1, original.count / 150))) + [original.count - 1]
        for offset in offsets {
            try original.prefix(offset).write(to: url)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
            await #expect(throws: StoreError.self, "truncated at \(offset) of \(original.count)") {
                try await coordinator.addPersistentStore(type: .binary, at: url)
            }
        }
    }

    /// A flipped byte anywhere either gives a typed error or loads exactly the original objects.
    @Test func everyFlippedByteIsDetected() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await Self.savedStore(in: directory)
        let original = try Data(contentsOf: url)
        let expected = try await Self.titles(at: url)
        var loadedIntact = 0
        for offset in stride(from: 0, to: original.count, by: max(1, original.count / 300)) {
            var damaged = original
            damaged[offset] ^= 0x41
            try damaged.write(to: url)
            do {
                let titles = try await Self.titles(at: url)
                #expect(titles == expected, "byte \(offset) changed the objects without an error")
                loadedIntact += 1
            } catch let error as StoreError {
                #expect(error.code != .storeInUse, "byte \(offset): \(error)")
            } catch is PersistenceError {
            }
        }
        #expect(loadedIntact < 5, "only bytes that do not matter may load")
    }

    /// A relationship target the file does not hold is a typed error on load. Targets are
    /// checked against a bitmap of each entity's reference numbers when they are dense, and a
    /// set when they are not (a file from elsewhere); both must find what is there and miss
    /// what is not, at the edges too; and an entity with no objects at all holds no target.
    @Test(arguments: [
        ([], 9, false), ([1, 2, 3], 3, true), ([1, 2, 3], 4, false), ([1, 2, 3], 64, false), ([64, 65, 127], 64, true), ([64, 65, 127], 63, false),
        ([1, 5_000_000_000_000], 5_000_000_000_000, true), ([1, 5_000_000_000_000], 2, false),
    ] as [([Int64], Int64, Bool)])
    func referencesAreCheckedInDenseAndSparseNumbering(authors: [Int64], target: Int64, loads: Bool) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Numbers.store")
        let model = try libraryModel()
        var writer = try BinaryStoreWriter(url: url)
        let store = UUID().uuidString
        var metadata = model.storeMetadata(forConfigurationName: nil)
        metadata[PersistentStore.storeUUIDKey] = .string(store)
        try writer.writeHeader(BinaryStoreHeader(metadata: metadata, schema: StoreSchema(model: model, configuration: nil)))
        let authorLayout = try #require(model.layout(for: "Author"))
        if !authors.isEmpty {
            try writer.writeObjects(
                entity: "Author",
                rows: authors.map { reference in
                    var row = Row(emptyFor: authorLayout)
                    row.attributes[0] = .string("Author \(reference)")
                    row.version = 1
                    return (key: reference, value: row)
                })
        }
        var book = Row(emptyFor: try #require(model.layout(for: "Book")))
        book.attributes[0] = .string("Pointing")
        book.relationships[0] = .toOne(ManagedObjectID(entityName: "Author", key: .permanent(store: store, reference: target)))
        book.version = 1
        try writer.writeObjects(entity: "Book", rows: [(key: Int64(1), value: book)])
        try writer.finish()
        writer.closeFile()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        if loads {
            try await coordinator.addPersistentStore(type: .binary, at: url)
        } else {
            let error = await #expect(throws: StoreError.self) { try await coordinator.addPersistentStore(type: .binary, at: url) }
            #expect(error?.code == .danglingReference)
            #expect(error?.message == "Book p1 points at Author p\(target), which the store does not hold")
        }
    }

    @Test func leftoversOfAnInterruptedSaveAreCleanedUp() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await Self.savedStore(in: directory)
        let leftover = directory.appendingPathComponent(".Library.store.strata-tmp-\(UUID().uuidString)")
        try Data("half a store".utf8).write(to: leftover)
        #expect(try await Self.titles(at: url).count == 20)
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
    }

    /// The book titles of a store, read through a new coordinator.
    static func titles(at url: URL) async throws -> [String] {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        let store = try await coordinator.addPersistentStore(type: .binary, at: url)
        do {
            let titles = try await backgroundContext(coordinator).perform { context in
                var request = FetchRequest<Book>()
                request.sortDescriptors = [.ascending("title")]
                return try context.fetch(request).map { "\($0.title) \($0.pages) \($0.author?.name ?? "-") \($0.chapters.map(\.title))" }
            }
            try await coordinator.removePersistentStore(store)
            return titles
        } catch {
            try? await coordinator.removePersistentStore(store)
            throw error
        }
    }
}
