import Strata
import Testing

/// Rollback, reset, refresh, change tracking and the lifecycle hooks.
@Suite struct ContextLifecycleTests {
    @Test func changeTrackingFollowsEveryEdit() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        try await backgroundContext(coordinator).perform { context in
            let book = try Book(context: context)
            book.title = "Emma"
            #expect(book.isInserted && !book.isUpdated && book.hasChanges)
            #expect(book.changedValues()["title"] as? String == "Emma")
            #expect(context.insertedObjects == [book])
            try context.save()
            #expect(!book.isInserted && !book.hasChanges && !context.hasChanges)
            #expect(book.committedValues(forKeys: ["title"])["title"] as? String == "Emma")

            book.pages = 474
            #expect(book.isUpdated)
            #expect(context.updatedObjects == [book])
            #expect(Set(book.changedValues().keys) == ["pages"])
            #expect(book.committedValues(forKeys: ["pages"])["pages"] as? Int32 == 0)
        }
    }

    @Test func rollbackRestoresTheSavedState() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        try await backgroundContext(coordinator).perform { context in
            let author = try Author(context: context)
            author.name = "Austen"
            try context.save()
            author.name = "Eliot"
            let book = try Book(context: context)
            book.author = author
            context.rollback()
            #expect(author.name == "Austen")
            #expect(author.books.isEmpty)
            #expect(book.managedObjectContext == nil)
            #expect(context.hasChanges == false)
        }
    }

    @Test func refreshWithoutMergeTurnsTheObjectIntoAFault() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        try await backgroundContext(coordinator).perform { context in
            let tag = try Tag(context: context)
            tag.label = "saved"
            try context.save()
            tag.label = "unsaved"
            context.refresh(tag, mergeChanges: false)
            #expect(tag.isFault)
            #expect(context.hasChanges == false)
            #expect(tag.label == "saved")
            #expect(!tag.isFault)
        }
    }

    /// A fault whose object another context deleted reads as Core Data's
    /// `shouldDeleteInaccessibleFaults` has it: defaults, and zero values where the model has no
    /// default, so that a typed non-optional property does not trap; changing it and saving is
    /// a conflict, not a write.
    @Test(arguments: StoreKind.queryable)
    func aFaultTheStoreCannotGiveReadsAsDefaults(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let reader = backgroundContext(coordinator)
        let id = try await reader.perform { context in
            let author = try Author(context: context)
            author.name = "Gone"
            try context.save()
            context.refresh(author, mergeChanges: false)
            return author.objectID
        }
        try await backgroundContext(coordinator).perform { context in
            context.delete(try context.existingObject(with: id))
            try context.save()
        }
        try await reader.perform { context in
            context.refreshAllObjects()
            let author = try #require(context.registeredObject(for: id) as? Author)
            #expect(author.isFault)
            #expect(author.name == "")
            #expect(author.books.isEmpty)
            author.name = "Back"
            #expect(throws: PersistenceError.self) { try context.save() }
        }
    }

    @Test func resetLetsEveryObjectGo() async throws {
        let coordinator = try await makeCoordinator(libraryModel())
        try await backgroundContext(coordinator).perform { context in
            let tag = try Tag(context: context)
            tag.label = "a"
            try context.save()
            _ = try Tag(context: context)
            context.reset()
            #expect(context.registeredObjects.isEmpty)
            #expect(context.hasChanges == false)
            #expect(tag.managedObjectContext == nil)
            #expect(try context.count(for: FetchRequest<Tag>()) == 1)
        }
    }

    @Test func lifecycleHooksRunAtTheirMoments() async throws {
        let model = try ManagedObjectModel {
            EntityDescription("Note", class: Note.self) {
                AttributeDescription("text", .string)
                AttributeDescription("revision", .integer64, defaultValue: 0)
            }
        }
        let coordinator = try await makeCoordinator(model)
        let id = try await backgroundContext(coordinator).perform { context in
            let note = try Note(context: context)
            #expect(note.events == ["awakeFromInsert"])
            #expect(note.text == "new", "values set in awakeFromInsert stay")
            try context.save()
            #expect(note.events == ["awakeFromInsert", "willSave", "didSave"])
            #expect(note.revision == 1, "changes made in willSave are saved")
            context.delete(note)
            try context.save()
            #expect(note.events.suffix(2) == ["prepareForDeletion", "willSave"])
            return note.objectID
        }
        _ = id
        let events = try await backgroundContext(coordinator).perform { context in
            let note = try Note(context: context)
            try context.save()
            let other = backgroundContext(context.persistentStoreCoordinator!)
            let noteID = note.objectID
            return try other.performAndWait { other in
                let fetched = try #require(try other.existingObject(with: noteID) as? Note)
                return fetched.events
            }
        }
        #expect(events == ["awakeFromFetch"])
    }

    final class Note: ManagedObject {
        @Attribute("text") var text: String
        @Attribute("revision") var revision: Int
        var events: [String] = []

        override func awakeFromInsert() {
            events.append("awakeFromInsert")
            text = "new"
        }
        override func awakeFromFetch() { events.append("awakeFromFetch") }
        override func willSave() {
            events.append("willSave")
            if !isDeleted { revision += 1 }
        }
        override func didSave() { events.append("didSave") }
        override func prepareForDeletion() { events.append("prepareForDeletion") }
    }
}
