import Foundation
import Strata
import StrataTestSupport
import Testing

/// A process saving a store in a loop is killed with SIGKILL at random moments; after every
/// kill the store opens and holds exactly the state of one completed save.
@Suite struct CrashSafetyTests {
    static let model = try! ManagedObjectModel {
        EntityDescription("Counter") { AttributeDescription("value", .integer64, defaultValue: 0) }
        EntityDescription("Item") { AttributeDescription("index", .integer64) }
        EntityDescription("Filler") { AttributeDescription("text", .string) }
    }

    @Test(arguments: [StoreType.binary, .sqlite])
    func aKilledSaveLeavesTheLastCompletedOne(_ type: StoreType) async throws {
        let helper = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("StoreCrashHelper")
        try #require(FileManager.default.isExecutableFile(atPath: helper.path), "build the helper first (scripts/test does)")
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent(type == .sqlite ? "Crash.sqlite" : "Crash.store")
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = SplitMix64(seed: seed)
        var previous: Int64 = 0
        var kills = 0
        var interrupted = 0
        // Until its first save (which writes the ballast), then killed.
        _ = try await ChildProcess.killed(helper, [url.path, type.rawValue.lowercased()], after: .zero)
        for round in 0..<30 {
            // Into the loop of saves (its first save reported, however long start-up took on a
            // busy machine), then at a random moment: a kill before the loop tests nothing.
            let delay = Int64.random(in: 0...300_000_000, using: &generator)
            let helperRun = try await ChildProcess.killed(helper, [url.path, type.rawValue.lowercased()], after: .nanoseconds(delay))
            kills += helperRun.signal == SIGKILL ? 1 : 0
            let printed = String(decoding: helperRun.output, as: UTF8.self)
            if try FileManager.default.contentsOfDirectory(atPath: directory.path).contains(where: { $0.contains("strata-tmp") }) {
                interrupted += 1
            }
            let acknowledged = printed.split(separator: "\n").last.flatMap { Int64($0.dropFirst("saved ".count)) } ?? previous

            let (counter, indexes) = try await Self.state(at: url, type)
            #expect(Set(indexes) == Set(1...max(counter, 1)).filter { _ in counter > 0 },
                    "round \(round), seed \(seed): items \(indexes.count) for counter \(counter)")
            #expect(indexes.count == Int(counter), "round \(round), seed \(seed)")
            #expect(counter >= acknowledged, "round \(round), seed \(seed): a save reported done was lost")
            #expect(counter <= acknowledged + 1, "round \(round), seed \(seed)")
            previous = counter
        }
        #expect(kills >= 25)
        // (A SQLite store leaves no file of its own behind: an interrupted save is a WAL frame set
        // with no commit record, which SQLite ignores.)
        #expect(type == .sqlite || interrupted > 0, "some kills landed in the middle of writing a save (seed \(seed))")
        #expect(previous > 0, "the helper saved at least once")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("strata-tmp") }
        #expect(leftovers.isEmpty, "opening the store removed the files of interrupted saves")
    }

    /// The counter and the item indexes of the store.
    static func state(at url: URL, _ type: StoreType = .binary) async throws -> (Int64, [Int64]) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try await coordinator.addPersistentStore(type: type, at: url)
        let state = try await backgroundContext(coordinator).perform { context in
            let counter = try context.fetch(FetchRequest<ManagedObject>(entityName: "Counter")).first
            let value = try counter?.value(forKey: "value") as? Int64 ?? 0
            let indexes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")).compactMap {
                try $0.value(forKey: "index") as? Int64
            }
            return (value, indexes.sorted())
        }
        try await coordinator.removePersistentStore(store)
        return state
    }

    /// Two processes add to one counter in a SQLite store at once, each save meeting the
    /// other's: optimistic locking makes every lost race a conflict that is retried, so no
    /// increment is lost and every inserted object is there.
    @Test func twoProcessesSavingToOneSQLiteFileLoseNoUpdate() async throws {
        let helper = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("StoreCrashHelper")
        try #require(FileManager.default.isExecutableFile(atPath: helper.path), "build the helper first (scripts/test does)")
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Shared.sqlite")
        let increments = 150
        // One counter to begin with: two processes that both found none would make one each.
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model)
        let store = try await coordinator.addPersistentStore(type: .sqlite, at: url)
        try await backgroundContext(coordinator).perform { context in
            _ = try context.insertNewObject(forEntityName: "Counter")
            try context.save()
        }
        try await coordinator.removePersistentStore(store)
        async let first = ChildProcess.run(helper, [url.path, "sqlite", "increment", "\(increments)", "1"])
        async let second = ChildProcess.run(helper, [url.path, "sqlite", "increment", "\(increments)", "2"])
        let helpers = try await [first, second]
        #expect(helpers.allSatisfy { $0.status == 0 }, "\(helpers.map { String(decoding: $0.errors, as: UTF8.self) })")
        let (counter, indexes) = try await Self.state(at: url, .sqlite)
        #expect(try await Self.counterCount(at: url) == 1)
        #expect(counter == Int64(2 * increments), "every increment of both processes landed")
        #expect(Set(indexes) == Self.expectedItems(workers: 2, increments: increments))
    }

    /// The Items the helper's `increment` mode leaves: each worker's, but for those it deleted
    /// (i - 1 at each multiple of 5).
    static func expectedItems(workers: Int, increments: Int) -> Set<Int64> {
        var expected: Set<Int64> = []
        for worker in 1...workers {
            for step in 1...increments where (step + 1) % 5 != 0 || step == increments {
                expected.insert(Int64(worker * 1_000_000 + step))
            }
        }
        return expected
    }

    static func counterCount(at url: URL) async throws -> Int {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try await coordinator.addPersistentStore(type: .sqlite, at: url)
        return try await backgroundContext(coordinator).perform { try $0.count(for: FetchRequest<ManagedObject>(entityName: "Counter")) }
    }
}
