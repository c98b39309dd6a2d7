import Strata

extension StoreType {
    /// A store in a PostgreSQL database, shared by every process and machine that opens it:
    /// ``PostgresStore``. Register it once with ``PostgresStore/register()``, then add it with a
    /// `postgres://user@host:port/database?schema=name` URL.
    public static let postgreSQL = StoreType(rawValue: "PostgreSQL")
}
