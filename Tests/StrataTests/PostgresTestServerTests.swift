import StrataTestSupport
import Testing

/// Fails when the Postgres cases are required but no server is given: CI never skips them.
@Suite struct PostgresTestServerTests {
    @Test func theServerIsGivenWhenRequired() {
        #expect(!PostgresTestServer.isRequired || PostgresTestServer.url != nil, "STRATA_REQUIRE_POSTGRES=1 but STRATA_POSTGRES_URL is not set")
    }
}
