import Foundation
import Strata
import Testing

/// Refreshing turns objects back into faults as Core Data's `refresh(_:mergeChanges:)` and
/// `refreshAllObjects()` do, between `willTurnIntoFault()` and `didTurnIntoFault()` (issue 30,
/// item 3, part): without `mergeChanges`, always (changes lost); with it, an object that has no
/// unsaved changes (one that has keeps them on top of the latest values).
@Suite struct FaultingTests {
    final class Watched: ManagedObject {
        var calls: [String] = []
        override func willTurnIntoFault() { calls.append("will, fault: \(isFault)") }
        override func didTurnIntoFault() { calls.append("did, fault: \(isFault)") }
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Watched", class: Watched.self) { AttributeDescription("name", .string) }
        }
    }

    @Test func refreshTurnsObjectsIntoFaultsBetweenTheHooks() async throws {
        let coordinator = try await makeCoordinator(Self.model(), .sqlite)
        let context = backgroundContext(coordinator)
        let (quietID, busyID) = try await context.perform { context in
            let quiet = try #require(try context.insertNewObject(forEntityName: "Watched") as? Watched)
            try quiet.setValue("quiet", forKey: "name")
            let busy = try #require(try context.insertNewObject(forEntityName: "Watched") as? Watched)
            try busy.setValue("busy", forKey: "name")
            try context.save()
            context.refresh(quiet, mergeChanges: false)
            #expect(quiet.calls == ["will, fault: false", "did, fault: true"])
            #expect(quiet.isFault)
            #expect(try quiet.value(forKey: "name") as? String == "quiet", "a fault loads its values when read")
            return (quiet.objectID, busy.objectID)
        }
        try await backgroundContext(coordinator).perform { context in
            for id in [quietID, busyID] { try context.existingObject(with: id).setValue("changed elsewhere", forKey: "name") }
            try context.save()
        }
        let (quietFault, quietName, busyFault, busyName) = try await context.perform { context in
            let quiet = try #require(context.registeredObject(for: quietID) as? Watched)
            let busy = try #require(context.registeredObject(for: busyID) as? Watched)
            try busy.setValue("mine", forKey: "name")
            context.refreshAllObjects()
            return (quiet.isFault, try quiet.value(forKey: "name") as? String, busy.isFault, try busy.value(forKey: "name") as? String)
        }
        #expect(quietFault, "no unsaved changes: turned into a fault")
        #expect(quietName == "changed elsewhere")
        #expect(!busyFault, "unsaved changes: kept, on top of the latest values")
        #expect(busyName == "mine")
    }
}
