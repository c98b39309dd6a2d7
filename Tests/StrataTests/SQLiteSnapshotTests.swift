import Foundation
@testable import Strata
import Testing

/// A generation of a SQLite store reads through a read transaction pinned for it; the ones no
/// context reads any more are let go (their connections go back to the pool).
@Suite struct SQLiteSnapshotTests {
    final class WeakBox: @unchecked Sendable {
        // Safe: written once before it is shared, read after the tasks that could drop it end.
        weak var object: AnyObject?
        init(_ object: AnyObject?) { self.object = object }
    }

    static func currentSnapshot(_ coordinator: PersistentStoreCoordinator) -> WeakBox {
        WeakBox(coordinator.currentGeneration.snapshots.values.first?.snapshot)
    }

    @Test func snapshotsNoContextReadsAreLetGo() async throws {
        let coordinator = try await makeCoordinator(libraryModel(), .sqlite)
        try await backgroundContext(coordinator).perform { context in
            let tag = try Tag(context: context)
            tag.label = "first"
            try context.save()
        }
        let reader = backgroundContext(coordinator)
        // Pinned, as Core Data's `setQueryGenerationFrom(.current)`: it keeps its snapshot.
        #expect(try await reader.perform { try $0.setQueryGenerationFrom(.current); return try $0.count(for: FetchRequest<Tag>()) } == 1)
        let pinned = Self.currentSnapshot(coordinator)
        #expect(pinned.object != nil)

        var unread: [WeakBox] = []
        for label in ["second", "third", "fourth"] {
            try await backgroundContext(coordinator).perform { context in
                let tag = try Tag(context: context)
                tag.label = label
                try context.save()
            }
            unread.append(Self.currentSnapshot(coordinator))
        }
        // Each generation but the current one is read by no context: its snapshot is gone.
        #expect(unread.dropLast().allSatisfy { $0.object == nil })
        #expect(unread.last?.object != nil, "the current generation keeps its snapshot")
        #expect(pinned.object != nil, "a context still reads the first one")
        #expect(try await reader.perform { try $0.count(for: FetchRequest<Tag>()) } == 1, "and sees none of the later saves")

        try await reader.perform { try $0.setQueryGenerationFrom(nil) }
        #expect(pinned.object == nil, "let go once the context was unpinned")
        #expect(try await reader.perform { try $0.count(for: FetchRequest<Tag>()) } == 4)
    }

    /// An unpinned context (Core Data's default) holds no snapshot between its reads: a SQLite
    /// read transaction left open would keep the WAL from being checkpointed.
    @Test func anUnpinnedContextHoldsNoSnapshotBetweenReads() async throws {
        let coordinator = try await makeCoordinator(libraryModel(), .sqlite)
        let reader = backgroundContext(coordinator)
        #expect(try await reader.perform { try $0.count(for: FetchRequest<Tag>()) } == 0)
        let read = Self.currentSnapshot(coordinator)
        try await backgroundContext(coordinator).perform { context in
            try Tag(context: context).label = "later"
            try context.save()
        }
        #expect(read.object == nil, "no context reads the generation the count read")
        #expect(try await reader.perform { try $0.count(for: FetchRequest<Tag>()) } == 1)
    }
}
