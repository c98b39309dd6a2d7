import Foundation
import Strata
import Testing

/// Xcode's generated managed object properties (`+CoreDataProperties.swift`) declare a to-many
/// relationship as `@NSManaged public var books: NSSet?` and an ordered one as
/// `NSOrderedSet?`; ported by renaming `@NSManaged` to `@Relationship`, they read and write as
/// Core Data's do: a collection that is empty (never `nil`) when there are no objects, members
/// that are the managed objects, an ordered set's order kept by a save, `nil` emptying it, and
/// the inverse side kept.
@Suite struct UntypedRelationshipTests {
    final class Writer: ManagedObject {
        @Attribute var name: String?
        @Relationship var books: NSSet?
    }

    final class Volume: ManagedObject {
        @Attribute var title: String?
        @Relationship var writer: Writer?
        @Relationship var parts: NSOrderedSet?
    }

    final class Part: ManagedObject {
        @Attribute var title: String?
        @Relationship var volume: Volume?
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Writer", class: Writer.self) {
                AttributeDescription("name", .string, optional: true)
                RelationshipDescription("books", toMany: "Volume", inverse: "writer")
            }
            EntityDescription("Volume", class: Volume.self) {
                AttributeDescription("title", .string, optional: true)
                RelationshipDescription("writer", toOne: "Writer", inverse: "books")
                RelationshipDescription("parts", toMany: "Part", inverse: "volume", ordered: true)
            }
            EntityDescription("Part", class: Part.self) {
                AttributeDescription("title", .string, optional: true)
                RelationshipDescription("volume", toOne: "Volume", inverse: "parts")
            }
        }
    }

    @Test(arguments: [StoreKind.binary, .sqlite])
    func generatedPropertiesReadAndWriteAsCoreDatas(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(Self.model(), kind)
        try await backgroundContext(coordinator).perform { context in
            let writer = try Writer(context: context)
            writer.name = "Le Guin"
            #expect(writer.books != nil, "a to-many reads as a set, never nil")
            #expect(writer.books?.count == 0)
            let volumes = try (0..<3).map { number in
                let volume = try Volume(context: context)
                volume.title = "Volume \(number)"
                return volume
            }
            writer.books = NSSet(array: volumes)
            #expect(volumes.allSatisfy { $0.writer === writer }, "the inverse follows")
            let parts = try ["c", "a", "b"].map { title in
                let part = try Part(context: context)
                part.title = title
                return part
            }
            volumes[0].parts = NSOrderedSet(array: parts)
            #expect(parts[1].volume === volumes[0])
            volumes[2].writer = nil
            #expect(writer.books?.count == 2, "the other side's change shows in the set")
            try context.save()
        }
        try await backgroundContext(coordinator).perform { context in
            let request: FetchRequest<Writer> = Writer.fetchRequest()
            let writer = try #require(try context.fetch(request).first)
            var titles: [String] = []
            for case let volume as Volume in writer.books ?? NSSet() { titles.append(volume.title ?? "") }
            #expect(titles.sorted() == ["Volume 0", "Volume 1"])
            let volumes = try #require(writer.books?.allObjects as? [Volume])
            #expect(Set(volumes.map(\.title)) == ["Volume 0", "Volume 1"])
            let first = try #require(try context.fetch(FetchRequest<Volume>(predicate: try FetchPredicate(format: "title == 'Volume 0'"))).first)
            let parts = try #require(first.parts?.array as? [Part])
            #expect(parts.map(\.title) == ["c", "a", "b"], "an ordered set's order is saved")
            first.parts = nil
            #expect(first.parts?.count == 0, "nil empties the relationship")
            #expect(parts.allSatisfy { $0.volume == nil })
            try context.save()
        }
        let left = try await backgroundContext(coordinator).perform { context in
            try context.count(for: FetchRequest<Part>(predicate: try FetchPredicate(format: "volume != nil")))
        }
        #expect(left == 0)
    }
}

/// What Xcode generates beside the properties (`+CoreDataProperties.swift`), ported by dropping
/// `@nonobjc` and the `NS`: it compiles, and a request annotated with its type is the entity's.
extension UntypedRelationshipTests.Writer {
    class func fetchRequest() -> FetchRequest<UntypedRelationshipTests.Writer> {
        FetchRequest<UntypedRelationshipTests.Writer>(entityName: "Writer")
    }
}
