// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataPostgres", targets: ["StrataPostgres"]),
        .executable(name: "strata", targets: ["StrataCLI"]),
        .executable(name: "strata-demo", targets: ["LibraryDemo"]),
        .executable(name: "notes-sample", targets: ["NotesSample"]),
        .executable(name: "shared-store-sample", targets: ["SharedStoreSample"]),
        .executable(name: "live-results-sample", targets: ["LiveResultsSample"]),
        .executable(name: "app-servers-sample", targets: ["AppServersSample"]),
    ],
    dependencies: [
        // TreeDictionary (persistent generations) and OrderedSet (ordered to-many).
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        // Library code logs, never prints.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        // SHA-256 for model version hashes, the same on every platform.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        // The strata command-line tool.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        // The PostgreSQL store's driver (only StrataPostgres and what imports it build it), and
        // the NIO types its futures come in.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Tests only: child processes (the strata tool, the crash helper, python readers).
        // Foundation's Process.run() on Linux (6.3.1) over-reads /proc/self/fd and crashes at
        // random (swift-corelibs-foundation#5472); Subprocess spawns with closefrom instead.
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        // liblz4 from the system (Debian: liblz4-dev), for the binary store's compression.
        .systemLibrary(
            name: "CLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"])]
        ),
        // zlib from the system (Debian: zlib1g-dev): Core Data's model cache is raw DEFLATE.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // SQLite from the system (Debian: libsqlite3-dev), for the SQLite store, through its C API:
        // GRDB's layer measured 11–66% slower on the benchmark workloads (docs/SQLiteStore.md).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The bytes of the files Strata reads and writes, below any idea of a model or a store:
        // byte buffers, LZ4 frames, raw DEFLATE, binary property lists, keyed archives, XML.
        .target(
            name: "StrataFileFormats",
            dependencies: ["CLZ4", "CZlib"]
        ),
        .target(
            name: "Strata",
            dependencies: [
                "StrataFileFormats",
                "CSQLite",
                .product(name: "HashTreeCollections", package: "swift-collections"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // The PostgreSQL store: many processes and machines on one database (docs/PostgresStore.md).
        .target(
            name: "StrataPostgres",
            dependencies: [
                "Strata",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "StrataCLI",
            dependencies: [
                "Strata",
                "StrataPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "JSONLinesStore",
            dependencies: ["Strata"],
            path: "Samples/JSONLinesStore"
        ),
        // A user's own incremental store: one JSON file per object in a folder.
        .target(
            name: "DirectoryStore",
            dependencies: ["Strata"],
            path: "Samples/DirectoryStore"
        ),
        .executableTarget(
            name: "LibraryDemo",
            dependencies: ["Strata"],
            path: "Samples/Library"
        ),
        // A model shipped as a package resource, found by PersistentContainer(name:) alone.
        .executableTarget(
            name: "NotesSample",
            dependencies: ["Strata"],
            path: "Samples/Notes",
            resources: [.copy("Notes.xcdatamodeld")]
        ),
        // Two processes on one store: remote change notifications and persistent history.
        .executableTarget(
            name: "SharedStoreSample",
            dependencies: ["Strata"],
            path: "Samples/SharedStore"
        ),
        // A fetched results controller and a watched fetch following another process's saves.
        .executableTarget(
            name: "LiveResultsSample",
            dependencies: ["Strata"],
            path: "Samples/LiveResults"
        ),
        // Two app servers on one PostgreSQL database, each hearing the other's saves.
        .executableTarget(
            name: "AppServersSample",
            dependencies: ["Strata", "StrataPostgres"],
            path: "Samples/AppServers"
        ),
        // The child process of the crash-safety test: saves in a loop until killed.
        .executableTarget(
            name: "StoreCrashHelper",
            dependencies: ["Strata", "StrataPostgres"],
            path: "Tests/Helpers/StoreCrashHelper"
        ),
        .testTarget(
            name: "StrataTests",
            dependencies: [
                "Strata", "StrataFileFormats", "JSONLinesStore", "DirectoryStore", "StrataTestSupport", "StrataPostgres",
                // Tests recompute Core Data's hashes from the rules' bytes, independently of Strata.
                .product(name: "Crypto", package: "swift-crypto"),
                // The PostgreSQL store's tests read its snapshots' connections.
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Helpers the test targets share: a seeded generator, a lock ThreadSanitizer understands,
        // the PostgreSQL test server.
        .target(
            name: "StrataTestSupport",
            dependencies: [
                "StrataPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Tests/StrataTestSupport"
        ),
        .testTarget(
            name: "StressTests",
            dependencies: ["Strata", "StrataTestSupport", "StrataPostgres"]
        ),
        .testTarget(
            name: "StrataMigrationTests",
            dependencies: ["Strata", "StrataPostgres", "StrataTestSupport"]
        ),
        .testTarget(
            name: "StrataCLITests",
            dependencies: ["Strata", "StrataTestSupport"]
        ),
    ]
)

// Strict settings for every Swift target, in one place.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
