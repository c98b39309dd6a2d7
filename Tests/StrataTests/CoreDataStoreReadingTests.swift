import Foundation
@testable import Strata
import Testing

/// Every object of every real store Core Data wrote (`../shared/fixtures/sqlite`) reads through the
/// SQLite store as Python's `sqlite3` reads the raw row: each attribute decoded by the rules of the
/// schema page (§8), each to-one's key, each to-many's targets. Skipped where the fixtures are absent.
@Suite(.enabled(if: Fixtures.canReadSharedSQLiteStores, "the shared SQLite fixtures (or python3) are not here"))
struct CoreDataStoreReadingTests {
    static let cachedOnly = "alemar11__CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite"
    /// A store whose model version lies beside it: suffixed join columns, ordered many-to-manys.
    static let wire = (
        store: "wireapp__wire-ios-data-model/Tests/Resources/store2-21-1.wiredatabase",
        model: "wireapp__wire-ios-data-model/Resources/zmessaging2.21.1/zmessaging2.21.1.xcdatamodel"
    )
    static let stores = CoreDataStoreHashTests.stores.map(\.store) + [cachedOnly, wire.store]

    /// The model a fixture store was written with: its bundle's version, the version beside it,
    /// or (for the store whose model exists only in code) the model Core Data cached inside it,
    /// read by Strata.
    static func model(for store: String, at url: URL) throws -> ManagedObjectModel {
        if store == wire.store { return try ManagedObjectModel(contentsOf: Fixtures.sharedSQLiteStores.appendingPathComponent(wire.model)) }
        guard let entry = CoreDataStoreHashTests.stores.first(where: { $0.store == store }) else {
            return try SQLiteStore.cachedModel(ofStoreAt: url)
        }
        return try ModelBundle(contentsOf: Fixtures.sharedXcodeModels.appendingPathComponent(entry.bundle)).version(named: entry.version).model
    }

    @Test(arguments: stores)
    func everyObjectReadsAsCoreDataWroteIt(_ store: String) async throws {
        let original = Fixtures.sharedSQLiteStores.appendingPathComponent(store)
        let url = try CoreDataStoreReader.copied(original)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let raw = try await CoreDataStoreReader.rows(ofStoreAt: original)
        let model = try Self.model(for: store, at: url)
        let mapping = CoreDataTableMapping(model: model)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try await coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = backgroundContext(coordinator)

        var objectsRead = 0
        for entity in mapping.entities.values.sorted(by: { $0.number < $1.number }) {
            let rows = (raw[entity.table] ?? []).filter { $0["Z_ENT"] == .integer(Int64(entity.number)) }
            let byKey = Dictionary(rows.compactMap { row in row["Z_PK"].flatMap { if case .integer(let key) = $0 { (key, row) } else { nil } } },
                                   uniquingKeysWith: { a, _ in a })
            let read: [ObjectRead] = try await context.perform { context in
                var request = FetchRequest<ManagedObject>(entityName: entity.layout.name)
                request.includesSubentities = false
                return try context.fetch(request).map { object in
                    ObjectRead(
                        id: object.objectID, attributes: try entity.attributes.map { try object.primitiveAttributeValue(forKey: $0.attribute.name) },
                        toOnes: entity.toOnes.map { object.storage.relationships[$0.slot].objectIDs.first },
                        toManys: entity.toManys.map { Set(object.storage.relationships[$0.slot].objectIDs.compactMap(\.referenceNumber)) })
                }
            }
            #expect(read.count == rows.count, "\(store): \(entity.layout.name)")
            for object in read {
                let (id, attributes, toOnes, toManys) = (object.id, object.attributes, object.toOnes, object.toManys)
                let key = try #require(id.referenceNumber)
                guard let row = byKey[key] else {
                    Issue.record("\(store): \(id) is not in the table")
                    continue
                }
                #expect(id.uriRepresentation().absoluteString.hasPrefix("x-coredata://"))
                for (column, value) in zip(entity.attributes, attributes) {
                    // §8: 0x02, a UUID, NUL names a file in `.<store>_SUPPORT/_EXTERNAL_DATA`; the
                    // fixture has none of those files, so each reads as the reference to its file.
                    if case .blob(let raw)? = row[column.column], column.attribute.allowsExternalBinaryDataStorage, raw.first == 2 {
                        let name = String(decoding: raw.dropFirst().prefix(36), as: UTF8.self)
                        guard case .externalDataReference(let reference)? = value else {
                            Issue.record("\(store): \(id).\(column.attribute.name) read as \(String(describing: value))")
                            continue
                        }
                        #expect(reference.name == name && reference.fileURL.path.hasSuffix("_SUPPORT/_EXTERNAL_DATA/\(name)"))
                        continue
                    }
                    #expect(value == Self.expected(row[column.column] ?? .null, column.attribute), "\(store): \(id).\(column.attribute.name)")
                }
                for (column, target) in zip(entity.toOnes, toOnes) {
                    let expected: Int64? = if case .integer(let key)? = row[column.column] { key } else { nil }
                    #expect(target?.referenceNumber == expected, "\(store): \(id).\(column.column)")
                }
                for (toMany, targets) in zip(entity.toManys, toManys) {
                    #expect(targets == Self.targets(of: key, toMany, raw), "\(store): \(id) to-many slot \(toMany.slot)")
                }
                objectsRead += 1
            }
        }
        #expect(objectsRead > 0)
    }

    /// Core Data keeps `Book.pagesCount` (derived: `pages.@count`) with triggers that call
    /// functions of its own: a save through Strata runs them, and the derived value follows.
    @Test func savesIntoAStoreKeepItsDerivedAttributesByItsTriggers() async throws {
        let url = try CoreDataStoreReader.copied(Fixtures.sharedSQLiteStores.appendingPathComponent(Self.cachedOnly))
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let model = try SQLiteStore.cachedModel(ofStoreAt: url)
        func pagesCount(_ bookURI: URL?) async throws -> (URL, Int64, Int) {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try await coordinator.addPersistentStore(type: .sqlite, at: url)
            let id = bookURI.flatMap { coordinator.managedObjectID(forURIRepresentation: $0) }
            return try await backgroundContext(coordinator).perform { context in
                var request = FetchRequest<ManagedObject>(entityName: "Book")
                request.sortDescriptors = [.ascending("title")]
                let book = try id.map { try context.existingObject(with: $0) } ?? context.fetch(request)[0]
                let pages = try (book.value(forKey: "pages") as? Set<ManagedObject>)?.count ?? -1
                return (book.objectID.uriRepresentation(), try book.value(forKey: "pagesCount") as? Int64 ?? -1, pages)
            }
        }
        let (uri, before, pages) = try await pagesCount(nil)
        #expect(before == Int64(pages))

        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        // The store records persistent history: a writer must too (without the option it opens read-only).
        try await coordinator.addPersistentStore(type: .sqlite, at: url, options: [PersistentStoreOption.persistentHistoryTracking: true])
        let bookID = try #require(coordinator.managedObjectID(forURIRepresentation: uri))
        try await backgroundContext(coordinator).perform { context in
            let book = try context.existingObject(with: bookID)
            for number in 1...3 {
                let page = try context.insertNewObject(forEntityName: "Page")
                try page.setValue(Int32(9_000 + number), forKey: "number")
                try page.setPrimitiveValue(AttributeValue.transformable(Data("page \(number)".utf8)), forKey: "content")
                try page.setValue(book, forKey: "book")
            }
            try book.setValue("Renamed by Strata", forKey: "title")
            try context.save()
        }
        let (_, after, pagesAfter) = try await pagesCount(uri)
        #expect(pagesAfter == pages + 3)
        #expect(after == before + 3, "the store's triggers counted the new pages")
    }

    struct ObjectRead: Sendable {
        var id: ManagedObjectID
        var attributes: [AttributeValue?]
        var toOnes: [ManagedObjectID?]
        var toManys: [Set<Int64>]
    }

    /// The value Core Data's encoding (§8) gives a raw column, decoded here independently of Strata.
    static func expected(_ raw: CoreDataStoreReader.RawValue, _ attribute: AttributeDescription) -> AttributeValue? {
        func number() -> Double? {
            switch raw {
            case .integer(let v): Double(v)
            case .real(let v): v
            default: nil
            }
        }
        switch (attribute.type, raw) {
        case (_, .null): return nil
        case (.integer16, .integer(let v)): return .integer16(Int16(v))
        case (.integer32, .integer(let v)): return .integer32(Int32(v))
        case (.integer64, .integer(let v)): return .integer64(v)
        case (.boolean, .integer(let v)): return .boolean(v != 0)
        case (.double, _): return number().map { .double($0) }
        case (.float, _): return number().map { .float(Float($0)) }
        // A REAL read as a decimal: the shortest decimal that is the same double (as `NSNumber`
        // gives it; `Decimal(Double)` adds digits: 3.3333333332999993 for 3.3333333333).
        case (.decimal, _): return number().map { .decimal(Decimal(string: "\($0)", locale: Locale(identifier: "en_US_POSIX"))!) }
        case (.date, _): return number().map { .date(Date(timeIntervalSinceReferenceDate: $0)) }  // seconds since 2001
        case (.string, .text(let v)): return .string(v)
        case (.uri, .text(let v)): return URL(string: v).map { .uri($0) }
        case (.uuid, .blob(let v)) where v.count == 16: return .uuid(UUID(uuidString: Self.uuidString(v))!)
        case (.transformable, .blob(let v)): return .transformable(v)
        case (.binaryData, .blob(let v)):
            return .binaryData(attribute.allowsExternalBinaryDataStorage && v.first == 1 ? v.dropFirst() : v)
        default: return .string("unexpected \(raw) for \(attribute.type)")
        }
    }

    static func uuidString(_ bytes: Data) -> String {
        let hex = bytes.map { String(format: "%02X", $0) }.joined()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }

    /// The keys of the objects a to-many relationship of object `key` holds, from the raw rows.
    static func targets(of key: Int64, _ toMany: CoreDataTableMapping.ToManySlot, _ raw: [String: [[String: CoreDataStoreReader.RawValue]]]) -> Set<Int64> {
        switch toMany.storage {
        case .inverseForeignKey(let table, let column, _):
            return Set((raw[table] ?? []).compactMap { row in
                guard row[column] == .integer(key), case .integer(let target)? = row["Z_PK"] else { return nil }
                return target
            })
        case .joinTable(let table, let own, let other, _, _, _):
            return Set((raw[table] ?? []).compactMap { row in
                guard row[own] == .integer(key), case .integer(let target)? = row[other] else { return nil }
                return target
            })
        }
    }
}
