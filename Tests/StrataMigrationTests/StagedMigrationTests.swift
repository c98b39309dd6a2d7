import Foundation
import Strata
import Testing

@Suite struct StagedMigrationTests {
    /// Custom stages run code on the old model before and on the new model after.
    @Test func customStagesRunTheirCodeAroundTheMigration() async throws {
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Library.store")
        let bundle = try ModelBundle(contentsOf: MigrationFixtures.library)
        _ = try await LibraryMigrationTests.versionOneStore(at: url, bundle: bundle)
        let plan = MigrationPlan(bundle: bundle, customStages: [
            .custom(
                from: "Library", to: "Library 2",
                willMigrate: { context in
                    // Before the note entity goes, fold the notes into the publisher's name.
                    let notes = try context.objects("Note", sortedBy: "text")
                    let publisher = try context.objects("Publisher", sortedBy: "name").first
                    try publisher?.setValue("Penguin (\(notes.count) note)", forKey: "name")
                },
                didMigrate: { context in
                    let tag = try context.insertNewObject(forEntityName: "Tag")
                    try tag.setValue("migrated", forKey: "label")
                    try tag.setValue(Set(try context.objects("Book", sortedBy: "title")), forKey: "books")
                }),
        ])
        #expect(try plan.stages(forStoreMetadata: PersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url))
            .map { $0.mapping == nil && $0.willMigrate == nil ? "lightweight" : "custom" } == ["custom", "lightweight", "lightweight"])
        try await plan.migrateStore(at: url, to: "Library 3")
        let summary = try await MigrationFixtures.withStore(at: url, model: bundle.versions[2].model) { context in
            let imprint = try context.objects("Imprint", sortedBy: "name").first
            let tag = try context.objects("Tag", sortedBy: "label").first
            let books = try #require(try tag?.value(forKey: "books") as? Set<ManagedObject>)
            return "\(try imprint?.value(forKey: "name") ?? "-") / \(try tag?.value(forKey: "label") ?? "-") \(books.count)"
        }
        #expect(summary == "Penguin (1 note) / migrated 3")
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url)
        #expect(try bundle.version(forStoreMetadata: metadata).name == "Library 3")
    }

    @Test func cancellingLeavesTheStoreAsItWas() async throws {
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Library.store")
        let bundle = try ModelBundle(contentsOf: MigrationFixtures.library)
        _ = try await LibraryMigrationTests.versionOneStore(at: url, bundle: bundle)
        let before = try Data(contentsOf: url)
        let (old, new) = (bundle.versions[0].model, bundle.versions[1].model)
        let manager = MigrationManager(sourceModel: old, destinationModel: new)
        let task = Task {
            try await withTaskCancellationHandler {
                try await manager.migrateStore(at: url, mapping: try MappingModel.inferred(from: old, to: new))
            } onCancel: {}
        }
        task.cancel()
        let result = await task.result
        if case .failure(let error) = result {
            #expect((error as? MigrationError)?.code == .cancelled)
            #expect(try Data(contentsOf: url) == before)
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("strata-tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test func progressEventsAreAnAsyncSequence() async throws {
        let directory = try MigrationFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Library.store")
        let bundle = try ModelBundle(contentsOf: MigrationFixtures.library)
        _ = try await LibraryMigrationTests.versionOneStore(at: url, bundle: bundle)
        let (old, new) = (bundle.versions[0].model, bundle.versions[1].model)
        var entities: [String] = []
        for try await event in MigrationManager(sourceModel: old, destinationModel: new)
            .progressEvents(storeAt: url, mapping: try MappingModel.inferred(from: old, to: new))
        {
            entities.append(event.entity)
            #expect(event.totalObjects == 7)
        }
        #expect(entities.sorted() == ["Author", "Book", "Note", "Publisher"])
    }
}
