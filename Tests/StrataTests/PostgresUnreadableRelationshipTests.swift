import Foundation
@testable import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// A change made on PostgreSQL to a relationship that read as empty because its targets could
/// not be read: the SQLite store's case (`SQLiteStoreDamageTests`) on the other SQL store,
/// whose to-many faults and reads are its own (the save writer that refuses the change is
/// shared). Core Data raises at the use: "could not fulfill a fault";
/// ``PersistenceError/Code/faultNotFulfilled``.
///
/// The damage is a target row of an entity outside the relationship's destination. PostgreSQL
/// reads the targets' entity numbers only where the destination has subentities (elsewhere
/// every target is of the destination), so the keepers' animals here are of a hierarchy.
@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs STRATA_POSTGRES_URL (scripts/test starts a server)"))
struct PostgresUnreadableRelationshipTests {
    final class Keeper: ManagedObject {
        @Attribute("name") var name: String
        @Relationship("animals") var animals: Set<Animal>
    }

    class Animal: ManagedObject {
        @Attribute("name") var name: String
    }

    final class Dog: Animal {}

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Keeper", class: Keeper.self) {
                AttributeDescription("name", .string)
                RelationshipDescription("animals", toMany: "Animal", inverse: "keepers")
            }
            EntityDescription("Animal", class: Animal.self) {
                AttributeDescription("name", .string)
                RelationshipDescription("keepers", toMany: "Keeper", inverse: "animals")
            }
            EntityDescription("Dog", class: Dog.self, superentity: "Animal")
            EntityDescription("Car") { AttributeDescription("plate", .string) }
        }
    }

    /// A keeper of three animals (a many-to-many: a join table), one of them made a row of
    /// another entity by hand: the keeper's animals read as none, an animal added to them is
    /// not saved (it would have been written as the keeper's only one, the other links
    /// dropped), and once the row is repaired the keeper has its three animals and no other
    /// animal was stored.
    @Test func aChangeMadeFromAnUnreadableRelationshipIsNotSaved() async throws {
        let store = try await StoreUnderTest(.postgres, model: Self.model())
        defer { store.remove() }
        let schema = try #require(URLComponents(url: store.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value)
        try await store.withContext { context in
            let keeper = try Keeper(context: context)
            keeper.name = "Kim"
            for name in ["Rex", "Fido", "Tom"] {
                let animal = name == "Tom" ? try Animal(context: context) : try Dog(context: context)
                animal.name = name
                keeper.animals.insert(animal)
            }
            try context.save()
        }
        func entityNumber(_ name: String) async throws -> String {
            try #require(try await PostgresTestServer.rows("SELECT \"Z_ENT\"::text FROM \"\(schema)\".\"Z_PRIMARYKEY\" WHERE \"Z_NAME\" = '\(name)'").first?[0])
        }
        let (dog, car) = (try await entityNumber("Dog"), try await entityNumber("Car"))
        let damaged = try await PostgresTestServer.rows(
            "UPDATE \"\(schema)\".\"ZANIMAL\" SET \"Z_ENT\" = \(car) WHERE \"ZNAME\" = 'Fido' RETURNING \"Z_PK\"::text")
        #expect(damaged.count == 1)

        let error = await #expect(throws: PersistenceError.self) {
            try await store.withContext { context in
                let keeper = try #require(try context.fetch(FetchRequest<Keeper>()).first)
                #expect(keeper.animals.isEmpty, "the damaged relationship reads as no animals")
                let new = try Dog(context: context)
                new.name = "New"
                keeper.animals.insert(new)
                try context.save()
            }
        }
        #expect(error?.code == .faultNotFulfilled)
        #expect(error?.message.contains("Keeper.animals") == true, "\(error?.message ?? "")")

        try await PostgresTestServer.execute("UPDATE \"\(schema)\".\"ZANIMAL\" SET \"Z_ENT\" = \(dog) WHERE \"ZNAME\" = 'Fido'")
        let (names, animals) = try await store.withContext { context in
            let keeper = try #require(try context.fetch(FetchRequest<Keeper>()).first)
            return (keeper.animals.map(\.name).sorted(), try context.count(for: FetchRequest<Animal>()))
        }
        #expect(names == ["Fido", "Rex", "Tom"])
        #expect(animals == 3, "the failed save wrote no animal")
    }
}
