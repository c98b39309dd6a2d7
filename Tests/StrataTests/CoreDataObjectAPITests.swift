import Foundation
import Strata
import Testing

/// A managed object subclass as Core Data code writes one (issue 33): custom accessors over
/// `primitiveValue(forKey:)` / `setPrimitiveValue(_:forKey:)` (plain Swift values, as Core
/// Data's) between `willAccessValue`/`didAccessValue` and `willChangeValue`/`didChangeValue`;
/// an override of `didChangeValue(forKey:)` that reacts to changes; Xcode's generated to-many
/// accessors ported onto `mutableSetValue(forKey:)` and `mutableOrderedSetValue(forKey:)`;
/// `entity()`, `init(entity:insertInto:)`, `hasPersistentChangedValues`.
@Suite struct CoreDataObjectAPITests {
    final class Writer: ManagedObject {
        var changedKeys: [String] = []

        /// A custom accessor, as the Core Data Programming Guide writes one.
        var name: String? {
            get {
                willAccessValue(forKey: "name")
                defer { didAccessValue(forKey: "name") }
                return try? primitiveValue(forKey: "name") as? String
            }
            set {
                willChangeValue(forKey: "name")
                try? setPrimitiveValue(newValue, forKey: "name")
                didChangeValue(forKey: "name")
            }
        }
        @Attribute var nickname: String?
        @Attribute var draft: String?
        @Relationship var books: Set<Volume>

        override func didChangeValue(forKey key: String) {
            super.didChangeValue(forKey: key)
            changedKeys.append(key)
        }

        // Xcode's generated accessors (`@NSManaged public func addToBooks(_:)`), ported.
        func addToBooks(_ value: Volume) { try? mutableSetValue(forKey: "books").add(value) }
        func removeFromBooks(_ value: Volume) { try? mutableSetValue(forKey: "books").remove(value) }
        func addToBooks(_ values: Set<Volume>) { try? mutableSetValue(forKey: "books").union(values) }
    }

    final class Volume: ManagedObject {
        @Attribute var title: String
        @Relationship var writer: Writer?
        @Relationship var parts: [Part]

        func insertIntoParts(_ value: Part, at index: Int) { try? mutableOrderedSetValue(forKey: "parts").insert(value, at: index) }
        func removeFromParts(at index: Int) { try? mutableOrderedSetValue(forKey: "parts").removeObject(at: index) }
        func replaceParts(at index: Int, with value: Part) {
            try? mutableOrderedSetValue(forKey: "parts").replaceObject(at: index, with: value)
        }
    }

    final class Part: ManagedObject {
        @Attribute var number: Int
        @Relationship var volume: Volume?
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Writer", class: Writer.self) {
                AttributeDescription("name", .string, optional: true)
                AttributeDescription("nickname", .string, optional: true)
                AttributeDescription("draft", .string, optional: true, transient: true)
                RelationshipDescription("books", toMany: "Volume", inverse: "writer")
            }
            EntityDescription("Volume", class: Volume.self) {
                AttributeDescription("title", .string)
                RelationshipDescription("writer", toOne: "Writer", inverse: "books")
                RelationshipDescription("parts", toMany: "Part", inverse: "volume", ordered: true)
            }
            EntityDescription("Part", class: Part.self) {
                AttributeDescription("number", .integer64)
                RelationshipDescription("volume", toOne: "Volume", inverse: "parts")
            }
        }
    }

    @Test func customAccessorsReadAndWritePlainValues() async throws {
        let coordinator = try await makeCoordinator(Self.model(), .sqlite)
        let id = try await backgroundContext(coordinator).perform { context in
            let writer = try Writer(context: context)
            writer.name = "Mary Shelley"
            #expect(writer.name == "Mary Shelley")
            #expect(try writer.primitiveValue(forKey: "name") as? String == "Mary Shelley", "a Swift value, not a wrapper")
            #expect(try writer.primitiveAttributeValue(forKey: "name") == .string("Mary Shelley"))
            try writer.setPrimitiveValue(nil, forKey: "nickname")
            #expect(try writer.primitiveValue(forKey: "nickname") == nil)
            #expect(throws: ValidationError.self) { try writer.primitiveValue(forKey: "nonsense") }
            try context.save()
            return writer.objectID
        }
        let name = try await backgroundContext(coordinator).perform { context in
            (try context.existingObject(with: id) as? Writer)?.name
        }
        #expect(name == "Mary Shelley", "the primitive set was saved")
    }

    @Test func anOverrideOfDidChangeValueSeesTheObjectsOwnChanges() async throws {
        let coordinator = try await makeCoordinator(Self.model())
        let keys = try await backgroundContext(coordinator).perform { context in
            let writer = try Writer(context: context)
            let volume = try Volume(context: context)
            writer.nickname = "M"
            try writer.setValue("Frankenstein", forKey: "draft")
            writer.books = [volume]
            try writer.setPrimitiveValue("quiet", forKey: "nickname")
            volume.writer = nil  // the inverse side: not told to the writer
            return writer.changedKeys
        }
        #expect(keys == ["nickname", "draft", "books"], "sets through @Attribute, setValue, @Relationship; not primitive sets")
    }

    @Test func generatedToManyAccessorsWorkOnTheMutableSets() async throws {
        let coordinator = try await makeCoordinator(Self.model(), .sqlite)
        let (writerID, titles, numbers) = try await backgroundContext(coordinator).perform { context in
            let writer = try Writer(context: context)
            var volumes: [Volume] = []
            for title in ["A", "B", "C"] {
                let volume = try Volume(context: context)
                volume.title = title
                volumes.append(volume)
            }
            writer.addToBooks(volumes[0])
            writer.addToBooks(Set(volumes[1...]))
            writer.addToBooks(volumes[0])
            #expect(writer.books.count == 3)
            #expect(volumes[1].writer === writer, "the inverse follows")
            writer.removeFromBooks(volumes[2])
            #expect(volumes[2].writer == nil)
            #expect(try writer.mutableSetValue(forKey: "books").contains(volumes[0]))
            #expect(throws: ValidationError.self) { try writer.mutableSetValue(forKey: "name") }
            #expect(throws: ValidationError.self) { try writer.mutableOrderedSetValue(forKey: "books") }

            let volume = volumes[0]
            var parts: [Part] = []
            for number in 1...4 {
                let part = try Part(context: context)
                part.number = number
                parts.append(part)
            }
            volume.insertIntoParts(parts[0], at: 0)
            volume.insertIntoParts(parts[2], at: 1)
            volume.insertIntoParts(parts[1], at: 1)
            #expect(volume.parts.map(\.number) == [1, 2, 3])
            volume.replaceParts(at: 2, with: parts[3])
            #expect(parts[2].volume == nil && parts[3].volume === volume)
            volume.removeFromParts(at: 0)
            let ordered = try volume.mutableOrderedSetValue(forKey: "parts")
            ordered.moveObjects(at: IndexSet(integer: 1), to: 0)
            #expect(ordered.array.map { ($0 as? Part)?.number } == [4, 2])
            try context.save()
            return (writer.objectID, ["A", "B"], [4, 2])
        }
        let (savedTitles, savedNumbers) = try await backgroundContext(coordinator).perform { context in
            let writer = try #require(try context.existingObject(with: writerID) as? Writer)
            let first = try #require(writer.books.first { $0.title == "A" })
            return (writer.books.map(\.title).sorted(), first.parts.map(\.number))
        }
        #expect(savedTitles == titles)
        #expect(savedNumbers == numbers, "the order was saved")
    }

    @Test func entitiesAreFoundFromClassesAndContexts() async throws {
        let model = try Self.model()
        #expect(Part.entity().name == "Part")
        #expect(Part.entity().relationshipsByName["volume"]?.destinationEntity?.name == "Volume")
        let coordinator = try await makeCoordinator(model)
        let context = backgroundContext(coordinator)
        #expect(EntityDescription.entity(forEntityName: "Volume", in: context)?.attributesByName["title"] != nil)
        #expect(EntityDescription.entity(forEntityName: "Nothing", in: context) == nil)
        let (inserted, plain, refused) = try await context.perform { context in
            let volume = try Volume(entity: Volume.entity(), insertInto: context)
            volume.title = "Dracula"
            let plain = try ManagedObject(entity: Part.entity(), insertInto: context)
            let refused = (try? Part(entity: Volume.entity(), insertInto: context)) == nil
            let other = try EntityDescription.insertNewObject(forEntityName: "Writer", into: context)
            return (volume.isInserted && context.insertedObjects.count == 3 && other is Writer, plain.entity.name, refused)
        }
        #expect(inserted)
        #expect(plain == "Part")
        #expect(refused, "a Part cannot be a Volume")
    }

    /// Core Data's `hasPersistentChangedValues`: changes to stored properties, not transient ones.
    @Test func onlyStoredChangesArePersistentChanges() async throws {
        let coordinator = try await makeCoordinator(Self.model(), .binary)
        let answers = try await backgroundContext(coordinator).perform { context in
            let writer = try Writer(context: context)
            var answers = [writer.hasPersistentChangedValues]
            try context.save()
            answers.append(writer.hasPersistentChangedValues)
            writer.draft = "scratch"
            answers.append(writer.hasChanges)
            answers.append(writer.hasPersistentChangedValues)
            writer.nickname = "M"
            answers.append(writer.hasPersistentChangedValues)
            return answers
        }
        #expect(answers == [true, false, true, false, true])
    }
}
