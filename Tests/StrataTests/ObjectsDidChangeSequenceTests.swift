import Foundation
import Strata
import StrataTestSupport
import Testing

/// What each `ObjectsDidChange` names, over seeded random runs of inserts, changes, deletes,
/// notices and saves, against a model of Core Data's rule (`NSManagedObjectContextObjectsDidChange`
/// names what changed since the last one): an object inserted and deleted between two notices
/// is named by neither set; a deleted object is not also updated; an object inserted since the
/// last notice is inserted, not updated; and with nothing changed no notice is posted at all.
/// The context marks its new objects rather than keeping them in a table
/// (`UnprocessedChanges`); this holds the marks to the rule.
@Suite struct ObjectsDidChangeSequenceTests {
    /// What the next notice should name, by label.
    struct Expected {
        var inserted: Set<String> = []
        var updated: Set<String> = []
        var deleted: Set<String> = []
        var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
    }

    struct Notice: Sendable, Equatable {
        var inserted: Set<String>
        var updated: Set<String>
        var deleted: Set<String>
        var insertedIDs: Int
    }

    static func labels(_ info: [AnyHashable: Any]?, _ key: ManagedObjectContext.NotificationKey) -> Set<String> {
        Set(((info?[key.rawValue] as? Set<ManagedObject>) ?? []).compactMap { ($0 as? Tag)?.label })
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func eachNoticeNamesWhatChangedSinceTheLast(seed: UInt64) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), .inMemory)
        let context = backgroundContext(coordinator)
        let notices = Locked<[Notice]>([])
        let observer = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didChangeObjectsNotification, object: context, queue: nil
        ) { note in
            let info = note.userInfo
            let ids = info?[ManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue] as? Set<ManagedObjectID> ?? []
            notices.withLock {
                $0.append(Notice(
                    inserted: Self.labels(info, .insertedObjects), updated: Self.labels(info, .updatedObjects),
                    deleted: Self.labels(info, .deletedObjects), insertedIDs: ids.count))
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let expected = try await context.perform { context in
            var random = SplitMix64(seed: seed)
            var live: [Tag] = []  // in the context, not deleted
            var next = Expected()
            var expectedNotices: [Notice] = []
            var made = 0
            func notice() {
                guard !next.isEmpty else { return }
                expectedNotices.append(Notice(inserted: next.inserted, updated: next.updated, deleted: next.deleted, insertedIDs: next.inserted.count))
                next = Expected()
            }
            for _ in 0..<400 {
                switch random.next() % 10 {
                case 0...3:
                    let tag = try Tag(context: context)
                    made += 1
                    tag.label = "t\(made)"
                    live.append(tag)
                    next.inserted.insert(tag.label)
                case 4...5 where !live.isEmpty:
                    let tag = live[Int(random.next() % UInt64(live.count))]
                    let before = tag.label
                    tag.label += "'"
                    if next.inserted.remove(before) != nil {
                        next.inserted.insert(tag.label)
                    } else {
                        next.updated.remove(before)
                        next.updated.insert(tag.label)
                    }
                case 6...7 where !live.isEmpty:
                    let tag = live.remove(at: Int(random.next() % UInt64(live.count)))
                    context.delete(tag)
                    next.updated.remove(tag.label)
                    if next.inserted.remove(tag.label) == nil { next.deleted.insert(tag.label) }
                case 8:
                    context.processPendingChanges()
                    notice()
                case 9:
                    try context.save()
                    notice()
                default:
                    continue
                }
            }
            context.processPendingChanges()
            notice()
            return expectedNotices
        }
        let seen = notices.withLock { $0 }
        #expect(seen.count == expected.count, "seed \(seed)")
        for (index, (got, want)) in zip(seen, expected).enumerated() {
            #expect(got == want, "notice \(index), seed \(seed)")
        }
    }
}
