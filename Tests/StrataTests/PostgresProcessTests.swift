import Foundation
import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// Many machines on one PostgreSQL store, simulated with processes on one: writers at once, a
/// writer killed in the middle of a save, and the server restarted under a writer.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs STRATA_POSTGRES_URL (scripts/test starts a server)"))
struct PostgresProcessTests {
    static var helper: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("StoreCrashHelper")
    }

    static func open(_ url: URL) async throws -> PersistentStoreCoordinator {
        PostgresStore.register()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: CrashSafetyTests.model)
        try await coordinator.addPersistentStore(type: .postgreSQL, at: url)
        return coordinator
    }

    /// The Counter's value and the Items' indexes.
    static func state(_ coordinator: PersistentStoreCoordinator) async throws -> (counter: Int64, counters: Int, items: [Int64]) {
        try await backgroundContext(coordinator).perform { context in
            let counters = try context.fetch(FetchRequest<ManagedObject>(entityName: "Counter"))
            let items = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")).compactMap { try $0.value(forKey: "index") as? Int64 }
            return (try counters.first?.value(forKey: "value") as? Int64 ?? 0, counters.count, items.sorted())
        }
    }

    @Test func threeProcessesWritingAtOnceLoseNothingAndHearEachOther() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.helper.path), "build the helper first (scripts/test does)")
        let url = try await PostgresTestServer.newStoreURL()
        let coordinator = try await Self.open(url)
        try await backgroundContext(coordinator).perform { context in
            _ = try context.insertNewObject(forEntityName: "Counter")
            try context.save()
        }
        let increments = 60
        let expected = CrashSafetyTests.expectedItems(workers: 3, increments: increments)
        let helpers = try await withThrowingTaskGroup(of: ChildProcess.self) { group in
            for worker in 1...3 {
                group.addTask {
                    try await ChildProcess.run(Self.helper, [
                        url.absoluteString, "postgres", "increment", "\(increments)", "\(worker)", "\(expected.count)",
                    ])
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let outputs = helpers.map { String(decoding: $0.output, as: UTF8.self) }
        #expect(helpers.allSatisfy { $0.status == 0 }, "\(outputs)")
        #expect(outputs.allSatisfy { $0.contains("heard all") }, "each process heard the others' saves: \(outputs)")
        let state = try await Self.state(coordinator)
        #expect(state.counters == 1)
        #expect(state.counter == Int64(3 * increments), "every increment of every process landed: \(outputs)")
        #expect(Set(state.items) == expected && state.items.count == expected.count)
    }

    @Test func aProcessKilledInTheMiddleOfASaveLeavesNothingOfIt() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.helper.path), "build the helper first (scripts/test does)")
        let url = try await PostgresTestServer.newStoreURL()
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = SplitMix64(seed: seed)
        var kills = 0
        for round in 0..<12 {
            let helper = try await ChildProcess.killed(
                Self.helper, [url.absoluteString, "postgres"],
                after: .nanoseconds(Int64.random(in: 0...200_000_000, using: &generator)))  // after its first save
            kills += helper.signal == SIGKILL ? 1 : 0
            let printed = String(decoding: helper.output, as: UTF8.self)
            let acknowledged = printed.split(separator: "\n").last.flatMap { Int64($0.dropFirst("saved ".count)) } ?? 0
            // A coordinator of its own each round: one that lives on reads what it has heard of,
            // and the killed process's last notification may still be on its way.
            let reader = try await Self.open(url)
            let state = try await Self.state(reader)
            try await reader.removePersistentStore(reader.persistentStores[0])
            #expect(state.items == Array(1...max(state.counter, 1)).filter { _ in state.counter > 0 }, "round \(round), seed \(seed)")
            #expect(state.counter >= acknowledged && state.counter <= acknowledged + 1, "round \(round), seed \(seed)")
        }
        #expect(kills >= 10)
    }

    /// On a cluster of the test's own, which it restarts under a writer.
    @Test(.enabled(if: PrivatePostgresCluster.canStart, "needs PostgreSQL's server programs"))
    func aServerRestartFailsTheSavesInFlightAndWritersGoOn() async throws {
        try await PrivatePostgresCluster.with { cluster in
            let url = try #require(URL(string: cluster.url + "?schema=restart"))
            let coordinator = try await Self.open(url)
            // Four writers, each saving 50 items at a time without a pause: whenever the server
            // goes, saves are in flight.
            let acknowledged = Locked<[[Int64]]>([])
            let unreachable = Locked<[[Int64]]>([])
            let otherErrors = Locked<[String]>([])
            let writers = (1...4).map { writer in
                Task {
                    let context = backgroundContext(coordinator)
                    for save in Int64(1)...Int64(100_000) {
                        if Task.isCancelled { break }
                        let indexes = (0..<Int64(50)).map { Int64(writer) * 100_000_000 + save * 100 + $0 }
                        do {
                            try await context.perform { context in
                                for index in indexes {
                                    try context.insertNewObject(forEntityName: "Item").setValue(index, forKey: "index")
                                }
                                try context.save()
                            }
                            acknowledged.withLock { $0.append(indexes) }
                        } catch let error as PostgresStoreError where error.code == .unreachable {
                            unreachable.withLock { $0.append(indexes) }
                            try? await context.perform { $0.rollback() }
                            try? await Task.sleep(nanoseconds: 20_000_000)
                        } catch is CancellationError {
                            break  // the test is done with this writer
                        } catch {
                            otherErrors.withLock { $0.append("\(save): \(error)") }
                            try? await context.perform { $0.rollback() }
                        }
                    }
                }
            }
            /// Waits until `count` saves are acknowledged, for a minute at most.
            func waitForSaves(_ count: Int) async throws -> Bool {
                let deadline = Date().addingTimeInterval(60)
                while acknowledged.withLock({ $0.count }) < count, Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
                return acknowledged.withLock { $0.count } >= count
            }
            var wentOn = try await waitForSaves(20)
            for _ in 1...3 {
                try await cluster.restart()
                wentOn = try await waitForSaves(acknowledged.withLock { $0.count } + 20) && wentOn
            }
            for writer in writers { writer.cancel() }
            for writer in writers { _ = await writer.result }
            #expect(wentOn, "the writers saved again after each restart: \(otherErrors.withLock { $0.suffix(3) })")

            #expect(otherErrors.withLock { $0 }.isEmpty, "\(otherErrors.withLock { $0 })")
            #expect(!unreachable.withLock { $0 }.isEmpty, "saves in flight when the server went failed with .unreachable")
            let stored = Set(try await Self.state(coordinator).items)
            let saved = acknowledged.withLock { $0 }
            #expect(saved.allSatisfy { Set($0).isSubset(of: stored) }, "every acknowledged save is kept whole")
            // A failed save left nothing, or (its commit reached the server but the answer was lost:
            // docs/PostgresStore.md) all of itself: never a part.
            let failed = unreachable.withLock { $0 }
            #expect(failed.allSatisfy { save in save.allSatisfy { stored.contains($0) } || save.allSatisfy { !stored.contains($0) } })
            let kept = failed.filter { save in save.allSatisfy { stored.contains($0) } }
            #expect(kept.count <= 3, "at most one lost answer per restart")
            #expect(stored.count == (saved.count + kept.count) * 50, "nothing stored but those saves")
            try await coordinator.removePersistentStore(coordinator.persistentStores[0])
        }
    }
}
