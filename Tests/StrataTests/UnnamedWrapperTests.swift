import Foundation
@testable import Strata
import Testing

/// `@Attribute var title: String` and `@Relationship var author: Writer?` without a key name the
/// property of the entity named as the Swift property, as Core Data's `@NSManaged var title`
/// does (Xcode's generated `NSManagedObject` subclasses declare each attribute and relationship
/// under its own name); a key still names another. Inherited wrappers find their names too.
@Suite struct UnnamedWrapperTests {
    final class Writer: ManagedObject {
        @Attribute var name: String
        @Attribute var born: Int?
        @Relationship var works: Set<Work>
    }

    class Work: ManagedObject {
        @Attribute var title: String
        @Attribute("pages") var pageCount: Int
        @Relationship var author: Writer?
    }

    final class Novel: Work {
        @Attribute var genre: String?
        @Relationship var sequel: Novel?
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Writer", class: Writer.self) {
                AttributeDescription("name", .string)
                AttributeDescription("born", .integer32, optional: true)
                RelationshipDescription("works", toMany: "Work", inverse: "author")
            }
            EntityDescription("Work", class: Work.self) {
                AttributeDescription("title", .string)
                AttributeDescription("pages", .integer32, defaultValue: 0)
                RelationshipDescription("author", toOne: "Writer", inverse: "works")
            }
            EntityDescription("Novel", class: Novel.self, superentity: "Work") {
                AttributeDescription("genre", .string, optional: true)
                RelationshipDescription("sequel", toOne: "Novel", inverse: nil)
            }
        }
    }

    @Test(arguments: [StoreKind.inMemory, .sqlite])
    func wrappersWithoutAKeyNameTheirProperty(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(try Self.model(), kind)
        let written = try await backgroundContext(coordinator).perform { context in
            let writer = try Writer(context: context)
            writer.name = "Jane Austen"
            writer.born = 1775
            var novels: [Novel] = []
            for (title, pages) in [("Emma", 474), ("Persuasion", 249)] {
                let novel = try Novel(context: context)
                novel.title = title
                novel.pageCount = pages
                novel.genre = "novel"
                novel.author = writer
                novels.append(novel)
            }
            novels[0].sequel = novels[1]
            // The keys are the entity's properties: what key-value access reads is what was set.
            #expect(try writer.value(forKey: "name") as? String == "Jane Austen")
            #expect(try novels[0].value(forKey: "pages") as? Int32 == 474)
            #expect(try novels[0].value(forKey: "genre") as? String == "novel")
            #expect(writer.works.count == 2, "setting the to-one filled its inverse")
            try context.save()
            return novels[0].objectID
        }

        let read = try await backgroundContext(coordinator).perform { context in
            let emma = try context.existingObject(with: written) as? Novel
            return (
                emma?.title, emma?.pageCount, emma?.genre, emma?.author?.name, emma?.author?.born, emma?.sequel?.title,
                emma?.author?.works.map(\.title).sorted()
            )
        }
        #expect(read.0 == "Emma" && read.1 == 474 && read.2 == "novel")
        #expect(read.3 == "Jane Austen" && read.4 == 1775 && read.5 == "Persuasion")
        #expect(read.6 == ["Emma", "Persuasion"])
    }

    /// Each object learns its wrappers' names at its first access; objects made later, and
    /// objects of another class that declares a property of the same name, find theirs.
    @Test func namesAreFoundPerClassAndKeptPerObject() async throws {
        let coordinator = try await makeCoordinator(try Self.model())
        let titles = try await backgroundContext(coordinator).perform { context in
            var titles: [String] = []
            for index in 0..<3 {
                let work = index == 1 ? try Novel(context: context) : try Work(context: context)
                work.title = "Work \(index)"
                titles.append(work.title)
            }
            let writer = try Writer(context: context)
            writer.name = "Anonymous"
            titles.append(writer.name)
            return titles
        }
        #expect(titles == ["Work 0", "Work 1", "Work 2", "Anonymous"])
    }
}
