import Foundation
import Strata
import Testing

/// What every store type must do: the same suite over the in-memory, binary and SQLite stores and
/// the samples' JSON-lines store (a user's own `AtomicStore` subclass) and directory store (a
/// user's own `IncrementalStore` subclass).
@Suite struct StoreConformanceTests {
    @Test(arguments: StoreKind.allCases)
    func everyAttributeTypeRoundTrips(_ kind: StoreKind) async throws {
        let model = try ManagedObjectModel {
            EntityDescription("Thing") {
                for type in AttributeType.valueTypes {
                    AttributeDescription("v\(type.binaryName)", type, optional: true)
                }
            }
        }
        let store = try await StoreUnderTest(kind, model: model)
        defer { store.remove() }
        let values: [AttributeType: AttributeValue] = [
            .integer16: .integer16(-300), .integer32: .integer32(70_000), .integer64: .integer64(1 << 40),
            .decimal: .decimal(Decimal(string: "3.14159")!), .double: .double(-0.5), .float: .float(1.25),
            .string: .string("naïve «quotes» \"and\"\nnewlines"), .boolean: .boolean(false),
            .date: .date(Date(timeIntervalSinceReferenceDate: 123_456.789)), .binaryData: .binaryData(Data([1, 0, 255])),
            .uuid: .uuid(UUID()), .uri: .uri(URL(string: "file:///tmp/a%20b")!),
            .transformable: .transformable(Data(#"{"a":[1,2]}"#.utf8)),
        ]
        let id = try await store.withContext { context in
            let thing = try context.insertNewObject(forEntityName: "Thing")
            for (type, value) in values { try thing.setPrimitiveValue(value, forKey: "v\(type.binaryName)") }
            try thing.setPrimitiveValue(AttributeValue.objectID(thing.objectID), forKey: "v\(AttributeType.objectID.binaryName)")
            try context.save()
            return thing.objectID
        }
        let read = try await store.withContext { context in
            let thing = try context.existingObject(with: id)
            return try AttributeType.valueTypes.map { try thing.primitiveAttributeValue(forKey: "v\($0.binaryName)") }
        }
        for (type, value) in zip(AttributeType.valueTypes, read) where type != .objectID {
            #expect(value == values[type], "\(type)")
        }
        #expect(read[AttributeType.valueTypes.firstIndex(of: .objectID)!]?.type == .objectID)
    }

    @Test(arguments: StoreKind.allCases)
    func everyRelationshipKindRoundTrips(_ kind: StoreKind) async throws {
        let store = try await StoreUnderTest(kind, model: libraryModel())
        defer { store.remove() }
        let authorID = try await store.withContext { context in
            let author = try Author(context: context)
            author.name = "Austen"
            let passport = try Passport(context: context)
            passport.number = "P-1"
            author.passport = passport
            let book = try Book(context: context)
            book.title = "Emma"
            book.author = author
            book.chapters = try ["I", "II", "III"].map { title in
                let chapter = try Chapter(context: context)
                chapter.title = title
                return chapter
            }
            book.tags = try Set(["classic", "novel"].map { label in
                let tag = try Tag(context: context)
                tag.label = label
                return tag
            })
            try context.save()
            return author.objectID
        }
        let summary = try await store.withContext { context in
            let author = try #require(try context.existingObject(with: authorID) as? Author)
            let book = try #require(author.books.first)
            return [
                author.passport?.number ?? "-", book.chapters.map(\.title).joined(separator: ","),
                book.tags.map(\.label).sorted().joined(separator: ","), book.author?.name ?? "-",
                "\(book.tags.first?.books.count ?? 0)", book.chapters.first?.book?.title ?? "-",
            ]
        }
        #expect(summary == ["P-1", "I,II,III", "classic,novel", "Austen", "1", "Emma"])
    }

    @Test(arguments: StoreKind.allCases)
    func insertsUpdatesAndDeletesLand(_ kind: StoreKind) async throws {
        let store = try await StoreUnderTest(kind, model: libraryModel())
        defer { store.remove() }
        let ids = try await store.withContext { context in
            let tags = try (0..<5).map { index in
                let tag = try Tag(context: context)
                tag.label = "t\(index)"
                return tag
            }
            try context.save()
            return tags.map(\.objectID)
        }
        try await store.withContext { context in
            try #require(try context.existingObject(with: ids[0]) as? Tag).label = "changed"
            context.delete(try context.existingObject(with: ids[1]))
            let tag = try Tag(context: context)
            tag.label = "new"
            try context.save()
        }
        let labels = try await store.withContext { context in
            try context.fetch(FetchRequest<Tag>()).map(\.label).sorted()
        }
        #expect(labels == ["changed", "new", "t2", "t3", "t4"])
    }

    @Test(arguments: StoreKind.allCases)
    func referencesAndURIsAreStableAcrossReloads(_ kind: StoreKind) async throws {
        let store = try await StoreUnderTest(kind, model: libraryModel())
        defer { store.remove() }
        let (uri, deleted) = try await store.withContext { context in
            let keep = try Tag(context: context)
            keep.label = "keep"
            let drop = try Tag(context: context)
            drop.label = "drop"
            try context.save()
            return (keep.objectID.uriRepresentation(), drop.objectID.referenceNumber)
        }
        try await store.withContext { context in
            let tags = try context.fetch(FetchRequest<Tag>())
            context.delete(try #require(tags.first { $0.label == "drop" }))
            try context.save()
        }
        let coordinator = try await store.open()
        let id = try #require(coordinator.managedObjectID(forURIRepresentation: uri))
        let (label, newReference) = try await backgroundContext(coordinator).perform { context in
            let label = try #require(try context.existingObject(with: id) as? Tag).label
            let tag = try Tag(context: context)
            tag.label = "later"
            try context.save()
            return (label, tag.objectID.referenceNumber)
        }
        #expect(label == "keep")
        // Above every number handed out before (1 and 2): a store may leave gaps (the SQLite
        // store takes numbers from Z_PRIMARYKEY in blocks), never reuse one.
        #expect((newReference ?? 0) > 2, "reference \(deleted ?? 0) of a deleted object is never handed out again")
    }

    @Test(arguments: StoreKind.allCases.filter(\.isPersistent))
    func metadataRoundTripsWithAndWithoutLoading(_ kind: StoreKind) async throws {
        let store = try await StoreUnderTest(kind, model: libraryModel())
        defer { store.remove() }
        let coordinator = try await store.open()
        let added = try #require(coordinator.persistentStores.first)
        let uuid = added.identifier
        added.metadata["Owner"] = .string("tests")
        try await backgroundContext(coordinator).perform { context in
            let tag = try Tag(context: context)
            tag.label = "a"
            try context.save()
        }
        try await coordinator.removePersistentStore(added)

        var metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: kind.type, at: store.url)
        #expect(metadata["Owner"] == .string("tests"))
        #expect(metadata[PersistentStore.storeUUIDKey] == .string(uuid))
        #expect(store.model.isConfiguration(nil, compatibleWithStoreMetadata: metadata))
        metadata["Owner"] = .string("tool")
        metadata[PersistentStore.storeUUIDKey] = .string("not a UUID")
        try PersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: kind.type, at: store.url)

        let reopened = try await store.open()
        let again = try #require(reopened.persistentStores.first)
        #expect(again.metadata["Owner"] == .string("tool"))
        #expect(again.identifier == uuid, "the store's UUID survives whatever metadata is set")
        let count = try await backgroundContext(reopened).perform { try $0.count(for: FetchRequest<Tag>()) }
        #expect(count == 1)
    }

    @Test(arguments: StoreKind.allCases.filter { $0.isAtomic || $0 == .sqlite })
    func aZeroLengthFileIsANewStore(_ kind: StoreKind) async throws {
        let store = try await StoreUnderTest(kind, model: libraryModel())
        defer { store.remove() }
        let manager = FileManager.default
        let coordinator = PersistentStoreCoordinator(managedObjectModel: store.model)
        let added = try await coordinator.addPersistentStore(type: kind.type, at: store.url)
        if kind.isAtomic {
            #expect(try manager.attributesOfItem(atPath: store.url.path)[.size] as? Int == 0, "a reservation")
            try await coordinator.removePersistentStore(added)
            #expect(!manager.fileExists(atPath: store.url.path), "removed before its first save: the reservation goes")
        } else {
            // Core Data's SQLite store creates its tables when it is added, and so does Strata's.
            #expect(try manager.attributesOfItem(atPath: store.url.path)[.size] as? Int ?? 0 > 0, "the schema, written at once")
            try await coordinator.removePersistentStore(added)
            for suffix in ["", "-wal", "-shm"] { try? manager.removeItem(atPath: store.url.path + suffix) }
        }

        #expect(manager.createFile(atPath: store.url.path, contents: nil))
        let second = PersistentStoreCoordinator(managedObjectModel: store.model)
        let reserved = try await second.addPersistentStore(type: kind.type, at: store.url)
        let count = try await backgroundContext(second).perform { context in
            let tag = try Tag(context: context)
            tag.label = "first"
            try context.save()
            return try context.count(for: FetchRequest<Tag>())
        }
        #expect(count == 1)
        try await second.removePersistentStore(reserved)
        #expect(try manager.attributesOfItem(atPath: store.url.path)[.size] as? Int ?? 0 > 0)
    }

    @Test(arguments: StoreKind.allCases.filter(\.isPersistent))
    func anotherModelVersionIsRefused(_ kind: StoreKind) async throws {
        let store = try await StoreUnderTest(kind, model: libraryModel())
        defer { store.remove() }
        try await store.withContext { context in
            let tag = try Tag(context: context)
            tag.label = "a"
            try context.save()
        }
        var entities = try libraryModel().entities
        entities[3].attributes.append(AttributeDescription(name: "color", type: .string, isOptional: true))
        let changed = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: entities))
        let error = await #expect(throws: PersistenceError.self) {
            try await changed.addPersistentStore(type: kind.type, at: store.url)
        }
        #expect(error?.code == .incompatibleStore)
        #expect(error?.message.hasSuffix("entities that differ: Tag (changed)") == true)
    }
}

extension AttributeType {
    /// The type's name without spaces, for property names.
    var binaryName: String { rawValue.replacingOccurrences(of: " ", with: "") }
}
