import Foundation
import NIOSSL
import PostgresNIO

/// Where a PostgreSQL store lives, read from its URL and the environment:
/// `postgres://user@host:port/database?schema=name` (or `postgresql://`; `?host=/run/postgresql`
/// for a Unix socket folder, as libpq reads it).
///
/// The password comes from `PGPASSWORD` and TLS from `PGSSLMODE` (`disable`, `prefer`,
/// `require`; libpq's names), never from the URL: a URL is logged and shown in errors, and a
/// password in one is refused rather than risked.
package struct PostgresLocation: Sendable, CustomStringConvertible {
    var user: String
    var database: String
    package var schema: String
    /// A TCP host and port, or a Unix socket file.
    var host: String?
    var port: Int
    var socketPath: String?

    package init(url: URL, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql"
        else {
            throw PostgresStoreError(.invalidURL, "a PostgreSQL store's URL starts with postgres:// (got \(Self.redacted(url)))")
        }
        guard components.password == nil else {
            throw PostgresStoreError(.invalidURL, "the store URL carries a password; give it in PGPASSWORD instead, which is never logged")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        for name in query.keys where !["schema", "host"].contains(name) {
            throw PostgresStoreError(.invalidURL, "the store URL has an option Strata does not know: \(name) (it knows schema and host)")
        }
        user = components.user.flatMap { $0.isEmpty ? nil : $0 } ?? environment["PGUSER"] ?? "postgres"
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? (environment["PGDATABASE"] ?? user) : path
        schema = query["schema"].flatMap { $0.isEmpty ? nil : $0 } ?? "public"
        port = components.port ?? 5432
        if let socketFolder = query["host"], socketFolder.hasPrefix("/") {
            socketPath = socketFolder + "/.s.PGSQL.\(port)"
        } else if let host = components.host, !host.isEmpty {
            self.host = host
        } else {
            throw PostgresStoreError(.invalidURL, "the store URL names no host (postgres://user@host/database, or ?host=/socket/folder)")
        }
        guard database.utf8.count <= 63, schema.utf8.count <= 63 else {
            throw PostgresStoreError(.invalidURL, "PostgreSQL names are at most 63 bytes long")
        }
    }

    /// The connection settings, with the password and TLS the environment gives.
    package func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> PostgresConnection.Configuration {
        let password = environment["PGPASSWORD"]
        if let socketPath {
            return PostgresConnection.Configuration(unixSocketPath: socketPath, username: user, password: password, database: database)
        }
        let tls: PostgresConnection.Configuration.TLS
        switch environment["PGSSLMODE"]?.lowercased() ?? "disable" {
        case "disable", "allow": tls = .disable
        case "prefer": tls = .prefer(try Self.tlsContext())
        case "require", "verify-ca", "verify-full": tls = .require(try Self.tlsContext())
        case let mode: throw PostgresStoreError(.invalidURL, "PGSSLMODE is \(mode); Strata knows disable, prefer and require")
        }
        return PostgresConnection.Configuration(host: host ?? "localhost", port: port, username: user, password: password, database: database, tls: tls)
    }

    private static func tlsContext() throws -> NIOSSLContext {
        do {
            return try NIOSSLContext(configuration: .makeClientConfiguration())
        } catch {
            throw PostgresStoreError(.invalidURL, "cannot set TLS up: \(error)")
        }
    }

    /// The URL as the store shows it: no password, whatever was given.
    package var description: String {
        let place = socketPath.map { "?host=" + ($0 as NSString).deletingLastPathComponent } ?? ""
        let server = host.map { "\($0):\(port)" } ?? ""
        return "postgres://\(user)@\(server)/\(database)\(place)\(place.isEmpty ? "?" : "&")schema=\(schema)"
    }

    private static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "an unreadable URL" }
        if components.password != nil { components.password = "…" }
        return components.string ?? "an unreadable URL"
    }
}
