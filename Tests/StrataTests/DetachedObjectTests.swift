import Foundation
import Strata
import Testing

/// Objects made without a context, as Core Data code makes them (issue 33):
/// `init(entity:insertInto: nil)`, then `context.insert(_:)` (Core Data's documentation of
/// `insert(_:)`: the object gets a temporary ID, a permanent one when saved, and is
/// unregistered again when the insert is rolled back).
@Suite struct DetachedObjectTests {
    final class Draft: ManagedObject {
        @Attribute var title: String?
        @Attribute var words: Int
        @Attribute var created: Date?
        @Relationship var folder: Shelf?
        var awakenings = 0

        override func awakeFromInsert() {
            super.awakeFromInsert()
            awakenings += 1
            try? setPrimitiveValue(Date(timeIntervalSince1970: 1_000), forKey: "created")
        }
    }

    final class Shelf: ManagedObject {
        @Attribute var name: String
        @Relationship var drafts: Set<Draft>
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Draft", class: Draft.self) {
                AttributeDescription("title", .string, optional: true)
                AttributeDescription("words", .integer64, defaultValue: 7)
                AttributeDescription("created", .date, optional: true)
                RelationshipDescription("folder", toOne: "Shelf", inverse: "drafts")
            }
            EntityDescription("Shelf", class: Shelf.self) {
                AttributeDescription("name", .string)
                RelationshipDescription("drafts", toMany: "Draft", inverse: "folder")
            }
            EntityDescription("Paper", isAbstract: true) {
                AttributeDescription("weight", .integer64, optional: true)
            }
        }
    }

    @Test func aDraftIsInsertedLaterAndSaved() async throws {
        let coordinator = try await makeCoordinator(Self.model(), .sqlite)
        let id = try await backgroundContext(coordinator).perform { context in
            let entity = try #require(EntityDescription.entity(forEntityName: "Draft", in: context))
            let draft = try Draft(entity: entity, insertInto: nil)
            #expect(draft.managedObjectContext == nil && !draft.isInserted && !draft.hasChanges)
            #expect(draft.objectID.isTemporaryID)
            #expect(draft.awakenings == 1, "awakeFromInsert runs when the object is made, with or without a context")
            #expect(draft.created == Date(timeIntervalSince1970: 1_000))
            #expect(draft.words == 7, "the model's default")
            draft.title = "Chapter one"
            try draft.validateForInsert()
            let contextChanged = context.hasChanges
            #expect(!contextChanged, "an object of no context is no change of the context")

            context.insert(draft)
            #expect(draft.managedObjectContext === context && draft.isInserted && draft.objectID.isTemporaryID)
            #expect(draft.awakenings == 1, "not again when inserted")
            #expect(try context.existingObject(with: draft.objectID) === draft)
            context.insert(draft)  // already there: nothing happens
            let insertedCount = context.insertedObjects.count
            #expect(insertedCount == 1)

            let shelf = try Shelf(context: context)
            shelf.name = "Ideas"
            draft.folder = shelf  // an inserted object relates as any other
            try context.save()
            #expect(!draft.objectID.isTemporaryID)
            return draft.objectID
        }
        let read = try await backgroundContext(coordinator).perform { context in
            let draft = try #require(try context.existingObject(with: id) as? Draft)
            return [draft.title, draft.folder?.name, draft.created.map { "\($0.timeIntervalSince1970)" }]
        }
        #expect(read == ["Chapter one", "Ideas", "1000.0"])
    }

    @Test func aDraftNeverInsertedIsNotSaved() async throws {
        let coordinator = try await makeCoordinator(Self.model(), .sqlite)
        let context = backgroundContext(coordinator)
        let count = try await context.perform { context in
            let entity = try #require(EntityDescription.entity(forEntityName: "Draft", in: context))
            let kept = try Draft(entity: entity, insertInto: context)
            kept.title = "kept"
            let dropped = try Draft(entity: entity, insertInto: nil)
            dropped.title = "dropped"
            try context.save()
            return try context.count(for: FetchRequest<Draft>())
        }
        #expect(count == 1)
    }

    /// `insert(_:)`'s documentation: rolled back before a save, the object is unregistered.
    @Test func aRolledBackInsertLeavesTheContextAndMayComeBack() async throws {
        let coordinator = try await makeCoordinator(Self.model())
        let titles = try await backgroundContext(coordinator).perform { context in
            let draft = try Draft(entity: Draft.entity(), insertInto: nil)
            draft.title = "again"
            context.insert(draft)
            context.rollback()
            #expect(draft.managedObjectContext == nil && !draft.isInserted)
            #expect(draft.title == "again", "its values stay with it")
            context.insert(draft)
            try context.save()
            return try context.fetch(FetchRequest<Draft>()).map(\.title)
        }
        #expect(titles == ["again"])
    }

    /// Several models with the same classes (the tests make one each): the entity `entity()`
    /// answers may come from another model than the context's; an equal entity inserts all the
    /// same, into the context's model.
    @Test func anEntityOfAnEqualModelInsertsIntoTheContextsModel() async throws {
        let other = try Self.model()
        let coordinator = try await makeCoordinator(Self.model(), .sqlite)
        let entity = try #require(other.entitiesByName["Draft"])
        let saved = try await backgroundContext(coordinator).perform { context in
            let draft = try Draft(entity: entity, insertInto: nil)
            draft.title = "from the other model"
            context.insert(draft)
            try context.save()
            return try context.fetch(FetchRequest<Draft>()).map(\.title)
        }
        #expect(saved == ["from the other model"])
    }

    @Test func entitiesThatCannotMakeAnObjectAreTypedErrors() throws {
        #expect(throws: PersistenceError.self, "an entity of no model: there is no layout to make") {
            try Draft(entity: EntityDescription(name: "Draft", managedObjectClass: Draft.self), insertInto: nil)
        }
        let model = try Self.model()
        #expect(throws: PersistenceError.self, "abstract") {
            try ManagedObject(entity: try #require(model.entitiesByName["Paper"]), insertInto: nil)
        }
        #expect(throws: ValidationError.self, "another class") {
            try Shelf(entity: try #require(model.entitiesByName["Draft"]), insertInto: nil)
        }
        let plain = try ManagedObject(entity: try #require(model.entitiesByName["Shelf"]), insertInto: nil)
        try plain.setValue("by key", forKey: "name")
        #expect(try plain.value(forKey: "name") as? String == "by key")
    }

    /// Core Data lets two objects of no context relate: `draft.folder = shelf` before either is
    /// inserted. The draft holds the shelf; inserting the draft inserts the shelf and sets the
    /// inverse; the save keeps both sides.
    @Test func objectsOfNoContextRelateAndKeepTheLinkWhenInserted() async throws {
        let coordinator = try await makeCoordinator(Self.model(), .sqlite)
        let (draftID, seen) = try await backgroundContext(coordinator).perform { context in
            let shelf = try Shelf(entity: Shelf.entity(), insertInto: nil)
            shelf.name = "Ideas"
            let first = try Draft(entity: Draft.entity(), insertInto: nil)
            first.title = "first"
            let second = try Draft(entity: Draft.entity(), insertInto: nil)
            second.title = "second"
            first.folder = shelf
            try second.setValue(shelf, forKey: "folder")
            var seen = [first.folder?.name ?? "-", (try second.value(forKey: "folder") as? Shelf)?.name ?? "-", "\(shelf.drafts.count)"]
            first.folder = nil
            first.folder = shelf  // set again: held once
            context.insert(first)
            seen.append("\(shelf.managedObjectContext === context) \(second.managedObjectContext == nil) \(shelf.drafts.map(\.title))")
            context.insert(second)
            seen.append("\(shelf.drafts.compactMap(\.title).sorted()) \(first.folder === shelf)")
            try context.save()
            return (first.objectID, seen)
        }
        #expect(seen == ["Ideas", "Ideas", "0", "true true [Optional(\"first\")]", "[\"first\", \"second\"] true"])
        let saved = try await backgroundContext(coordinator).perform { context in
            let draft = try #require(try context.existingObject(with: draftID) as? Draft)
            return (draft.folder?.name, draft.folder?.drafts.compactMap(\.title).sorted())
        }
        #expect(saved.0 == "Ideas" && saved.1 == ["first", "second"])
    }

    /// An object of no context cannot relate to one of a context, nor to an object of the wrong
    /// entity: typed errors through `setValue(_:forKey:)`, as Core Data refuses them.
    @Test func anObjectOfNoContextRelatesOnlyToObjectsOfNoContext() async throws {
        let coordinator = try await makeCoordinator(Self.model())
        let errors = try await backgroundContext(coordinator).perform { context in
            let draft = try Draft(entity: Draft.entity(), insertInto: nil)
            let inserted = try Shelf(context: context)
            let other = try Draft(entity: Draft.entity(), insertInto: nil)
            var codes: [ValidationError.Code] = []
            let attempts: [(ManagedObject, Any, String)] = [
                (draft, inserted, "folder"), (inserted, Set<ManagedObject>([draft]), "drafts"), (draft, other, "folder"),
            ]
            for (object, value, key) in attempts {
                do {
                    try object.setValue(value, forKey: key)
                } catch let error as ValidationError {
                    codes.append(error.code)
                }
            }
            return codes
        }
        #expect(errors == [.wrongContext, .wrongContext, .wrongType])
    }

    /// An object a context saved and then let go has a permanent ID: inserting it again would
    /// make a second object of that ID, a programmer error that stops the program.
    @Test func insertingAnObjectSavedAndLetGoStopsTheProgram() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let coordinator = try await makeCoordinator(DetachedObjectTests.model())
            try await backgroundContext(coordinator).perform { context in
                let shelf = try Shelf(context: context)
                shelf.name = "saved"
                try context.save()
                context.reset()
                context.insert(shelf)
            }
        }
        let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(message.contains("was saved by a context that let it go"))
    }
}
