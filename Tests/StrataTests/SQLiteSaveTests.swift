import Foundation
@testable import Strata
import Testing

/// What a save writes into a SQLite store's rows.
@Suite struct SQLiteSaveTests {
    /// An update writes the columns that changed and no others, as Core Data's store does: a
    /// trigger on one column (Core Data keeps derived attributes with such triggers) fires only
    /// when that column changes.
    @Test func anUpdateWritesOnlyTheColumnsThatChanged() async throws {
        let coordinator = try await makeCoordinator(libraryModel(), .sqlite)
        let url = try #require(coordinator.persistentStores.first?.url)
        try await backgroundContext(coordinator).perform { context in
            let book = try Book(context: context)
            book.title = "Emma"
            book.pages = 474
            try context.save()
        }
        let connection = try SQLiteConnection(url: url, readOnly: false, create: false, busyTimeout: .seconds(5))
        try connection.execute("""
            CREATE TABLE TITLELOG (Z_PK INTEGER);
            CREATE TRIGGER TITLECHANGED AFTER UPDATE OF ZTITLE ON ZBOOK BEGIN INSERT INTO TITLELOG VALUES (new.Z_PK); END
            """)
        func logged() throws -> SQLValue? { try connection.scalar("SELECT count(*) FROM TITLELOG") }

        func change(_ body: @escaping @Sendable (Book) -> Void) async throws {
            try await backgroundContext(coordinator).perform { context in
                let book = try #require(try context.fetch(FetchRequest<Book>()).first)
                body(book)
                try context.save()
            }
        }
        try await change { $0.pages = 475 }
        #expect(try logged() == .integer(0), "changing pages leaves the title's column alone")
        try await change { $0.title = "Emma." }
        #expect(try logged() == .integer(1))
        let stored = try connection.scalar("SELECT ZTITLE || ' ' || ZPAGES || ' ' || Z_OPT FROM ZBOOK")
        #expect(stored == .text("Emma. 475 3"))
    }

    /// Core Data keeps a store's changed metadata until the store is next saved, and a context's
    /// save with nothing to save still reaches the stores: the SQLite store writes the metadata
    /// then. A read-only store has nothing to write, and such a save succeeds.
    @Test func aSaveWithNothingToSaveWritesChangedMetadata() async throws {
        let coordinator = try await makeCoordinator(libraryModel(), .sqlite)
        let store = try #require(coordinator.persistentStores.first)
        let url = try #require(store.url)
        store.metadata["LastSync"] = .string("2026-11-26")
        #expect(try SQLiteStore.metadataForPersistentStore(at: url)["LastSync"] == nil, "kept until a save")
        try await backgroundContext(coordinator).perform { context in
            let hasChanges = context.hasChanges
            #expect(!hasChanges)
            try context.save()
        }
        #expect(try SQLiteStore.metadataForPersistentStore(at: url)["LastSync"] == .string("2026-11-26"))

        let reader = PersistentStoreCoordinator(managedObjectModel: try libraryModel())
        try await reader.addPersistentStore(type: .sqlite, at: url, options: [PersistentStoreOption.readOnly: true])
        reader.persistentStores[0].metadata["LastSync"] = .string("never written")
        try await backgroundContext(reader).perform { try $0.save() }
        #expect(try SQLiteStore.metadataForPersistentStore(at: url)["LastSync"] == .string("2026-11-26"))
    }
}
