import Foundation
import Strata
import Testing

/// Core Data's key-value coding reaches a subclass's own accessor (issue 30, item 11):
/// `value(forKey: "displayName")` calls a computed property, and so do predicates and sort
/// descriptors on that key (evaluated on the objects). Strata's subclasses name such keys in
/// `computedKeys`.
@Suite struct ComputedKeyTests {
    final class Person: ManagedObject {
        @Attribute("given") var given: String
        @Attribute("family") var family: String
        @Relationship("friend") var friend: Person?

        var displayName: String { "\(given) \(family)" }
        var nickname: String? { given == "Ann" ? "Annie" : nil }
        /// Shadowed by the modeled attribute of the same name.
        var familyShouted: String { family.uppercased() }

        override class var computedKeys: [ComputedKey] {
            super.computedKeys + [
                ComputedKey("displayName", \Person.displayName),
                ComputedKey("nickname", \Person.nickname),
                ComputedKey("closestFriend", \Person.friend),
                ComputedKey("family", \Person.familyShouted),
                ComputedKey("nameLength", of: Person.self) { $0.given.count + $0.family.count },
            ]
        }
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Person", class: Person.self) {
                AttributeDescription("given", .string)
                AttributeDescription("family", .string)
                RelationshipDescription("friend", toOne: "Person", inverse: nil)
            }
        }
    }

    /// Ann Lee (friend: Bo), Bo Chan, Cy Abe (friend: Ann).
    static func people(_ kind: StoreKind) async throws -> PersistentStoreCoordinator {
        let coordinator = try await makeCoordinator(model(), kind)
        try await backgroundContext(coordinator).perform { context in
            var made: [Person] = []
            for (given, family) in [("Ann", "Lee"), ("Bo", "Chan"), ("Cy", "Abe")] {
                let person = try Person(context: context)
                person.given = given
                person.family = family
                made.append(person)
            }
            made[0].friend = made[1]
            made[2].friend = made[0]
            try context.save()
        }
        return coordinator
    }

    @Test func valueForKeyReachesTheComputedProperty() async throws {
        let coordinator = try await Self.people(.inMemory)
        try await backgroundContext(coordinator).perform { context in
            let people = try context.fetch(FetchRequest<Person>(sortDescriptors: [.ascending("given")]))
            #expect(try people[0].value(forKey: "displayName") as? String == "Ann Lee")
            #expect(try people[0].value(forKey: "nickname") as? String == "Annie")
            #expect(try people[1].value(forKey: "nickname") == nil, "an optional's nil is nil, not Optional(nil)")
            #expect(try people[0].value(forKey: "closestFriend") as? Person === people[1])
            #expect(try people[0].value(forKey: "nameLength") as? Int == 6)
            #expect(try people[0].value(forKey: "family") as? String == "Lee", "the modeled attribute keeps its name")
            let error = #expect(throws: ValidationError.self) { try people[0].value(forKey: "nothing") }
            #expect(error?.code == .unknownKey)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func predicatesAndSortDescriptorsOnAComputedKey(_ kind: StoreKind) async throws {
        let coordinator = try await Self.people(kind)
        try await backgroundContext(coordinator).perform { context in
            var request = FetchRequest<Person>(sortDescriptors: [.descending("displayName")])
            #expect(try context.fetch(request).map(\.given) == ["Cy", "Bo", "Ann"])
            request.predicate = try FetchPredicate(format: "displayName CONTAINS 'e' AND nameLength < 6")
            #expect(try context.fetch(request).map(\.given) == ["Cy"])
            #expect(try context.count(for: request) == 1)
            request.predicate = try FetchPredicate(format: "closestFriend.given == 'Bo' OR nickname != nil")
            #expect(try context.fetch(request).map(\.given) == ["Ann"])
            request.predicate = try FetchPredicate(format: "closestFriend.displayName BEGINSWITH 'Ann'")
            #expect(try context.fetch(request).map(\.given) == ["Cy"])
            let bo = try #require(try context.fetch(FetchRequest<Person>(predicate: try FetchPredicate(format: "given == 'Bo'"))).first)
            #expect(try FetchPredicate(format: "displayName == 'Bo Chan'").evaluate(with: bo))
        }
    }

    @Test func anUnknownKeyIsStillRefused() async throws {
        let coordinator = try await Self.people(.sqlite)
        try await backgroundContext(coordinator).perform { context in
            let request = FetchRequest<Person>(predicate: try FetchPredicate(format: "displayNam == 'x'"))
            let error = #expect(throws: FetchPredicateError.self) { try context.fetch(request) }
            #expect(error?.code == .unknownKey)
        }
    }
}
