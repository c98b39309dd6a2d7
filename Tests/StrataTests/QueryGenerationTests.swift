import DirectoryStore
import Foundation
import JSONLinesStore
import Strata
import StrataTestSupport
import Testing

/// Core Data's query generations (issue 30, item 1; `NSManagedObjectContext.queryGenerationToken`
/// and `setQueryGenerationFrom(_:)`): a context's generation is `nil` by default, so every fetch,
/// count and fault reads the latest committed state of the store; objects already registered
/// keep their values until refreshed; pinning is asked for with `.current`.
@Suite struct QueryGenerationTests {
    init() {
        JSONLinesStore.register()
        DirectoryStore.register()
    }

    /// A context that read and saved once still sees another context's later save in its next
    /// fetch and count (today's bug: it found one tag, not two).
    @Test(arguments: StoreKind.allCases)
    func anUnpinnedContextSeesLaterSaves(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let reader = backgroundContext(coordinator)
        let before = try await reader.perform { context in
            try Tag(context: context).label = "Alice"
            try context.save()
            #expect(context.queryGenerationToken == nil)
            return try context.count(for: FetchRequest<Tag>())
        }
        try await backgroundContext(coordinator).perform { context in
            try Tag(context: context).label = "Bob"
            try context.save()
        }
        let (count, labels) = try await reader.perform { context in
            (try context.count(for: FetchRequest<Tag>()), try context.fetch(FetchRequest<Tag>(sortDescriptors: [.ascending("label")])).map(\.label))
        }
        #expect(before == 1)
        #expect(count == 2)
        #expect(labels == ["Alice", "Bob"])
    }

    /// A fault reads the latest state when it fires; an object already realised keeps its values
    /// through another context's save and a new fetch that returns it, until it is refreshed
    /// (Core Data: a fetch returns registered objects with their current in-memory state).
    @Test(arguments: StoreKind.allCases)
    func faultsReadTheLatestStateAndRealisedObjectsKeepTheirs(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let (faultID, heldID) = try await backgroundContext(coordinator).perform { context in
            let fault = try Tag(context: context)
            fault.label = "old"
            let held = try Tag(context: context)
            held.label = "held"
            try context.save()
            return (fault.objectID, held.objectID)
        }
        let reader = backgroundContext(coordinator)
        try await reader.perform { context in
            _ = context.object(with: faultID)  // a fault, not read
            let held = try context.existingObject(with: heldID) as? Tag
            #expect(held?.label == "held")
        }
        try await backgroundContext(coordinator).perform { context in
            try #require(try context.existingObject(with: faultID) as? Tag).label = "new"
            try #require(try context.existingObject(with: heldID) as? Tag).label = "changed"
            try context.save()
        }
        let (fault, held, refreshed) = try await reader.perform { context in
            let fault = (context.object(with: faultID) as? Tag)?.label
            _ = try context.fetch(FetchRequest<Tag>())
            let held = try #require(context.registeredObject(for: heldID) as? Tag)
            let before = held.label
            context.refresh(held, mergeChanges: false)
            return (fault, before, held.label)
        }
        #expect(fault == "new")
        #expect(held == "held")
        #expect(refreshed == "changed")
    }

    /// Pinned with `.current`, a context's fetches keep one generation across another
    /// context's saves until it is unpinned (`nil`) or moved (`.current`). (Core Data pins on
    /// SQLite stores only; Strata on each of its own. A user's incremental store, such as the
    /// directory sample, pins as far as its snapshots isolate, and its sample reads live files.)
    @Test(arguments: StoreKind.allCases.filter { $0 != .directory })
    func aPinnedContextKeepsItsGenerationUntilUnpinned(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let reader = backgroundContext(coordinator)
        try await reader.perform { context in
            try context.setQueryGenerationFrom(.current)
            #expect(try context.count(for: FetchRequest<Tag>()) == 0)
        }
        try await backgroundContext(coordinator).perform { context in
            try Tag(context: context).label = "Bob"
            try context.save()
        }
        let (pinned, unpinned) = try await reader.perform { context in
            let pinned = try context.count(for: FetchRequest<Tag>())
            try context.setQueryGenerationFrom(nil)
            return (pinned, try context.count(for: FetchRequest<Tag>()))
        }
        #expect(pinned == 0)
        #expect(unpinned == 1)
    }
}
