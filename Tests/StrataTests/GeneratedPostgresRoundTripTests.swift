import Foundation
@testable import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// The PostgreSQL store keeps what it saves for the whole class of models, not only the
/// fixtures' (issue 34: saves insert, update and delete rows as arrays spread by `unnest`):
/// for each of many generated models (``ModelGenerator``: every attribute type, suffixed
/// columns, subentities sharing a table, join tables, ordered sides), generated objects are
/// saved — two or three of each entity, so that each goes through a batched insert — changed
/// and saved again (batched updates of differing columns), and read back exactly through a new
/// coordinator.
///
/// `STRATA_SCHEMA_SEED=<seed>` runs one model; `STRATA_POSTGRES_CASES` sets how many (20 by default).
@Suite(.enabled(if: PostgresTestServer.isAvailable, "needs STRATA_POSTGRES_URL (scripts/test starts a server)"))
struct GeneratedPostgresRoundTripTests {
    static let seeds = GeneratedSchemaTests.seeds(countFrom: "STRATA_POSTGRES_CASES", default: 20, seed: 0x9057_6E5)

    @Test func everyGeneratedModelKeepsWhatItSavesTwice() async throws {
        PostgresStore.register()
        for seed in Self.seeds {
            guard case (let model, var generator)? = ModelGenerator.modelOrRecordedRefusal(seed: seed) else { continue }
            let url = try await PostgresTestServer.newStoreURL()
            try await GeneratedSchemaTests.checkRoundTrip(model, at: url, type: .postgreSQL, changingAgain: true, seed: seed, generator: &generator)
        }
    }
}
