// swift-tools-version: 6.1
import Foundation
import PackageDescription

/// A path dependency is named after its folder, which is whatever the clone was called.
let strata = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

// A package of its own, so that the main package's build and tests never compile the
// benchmark harness or the peers (GRDB). Run it with `scripts/bench` from the repository root.
let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The Postgres store's peer: the same driver, used directly.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
    ],
    targets: [
        .systemLibrary(name: "BenchLZ4", path: "Sources/BenchLZ4", pkgConfig: "liblz4"),
        .systemLibrary(name: "BenchSQLite", path: "Sources/BenchSQLite", pkgConfig: "sqlite3"),
        // libpq (Debian's libpq-dev): a synchronous PostgreSQL client, measured against postgres-nio.
        .systemLibrary(name: "BenchLibPQ", path: "Sources/BenchLibPQ", pkgConfig: "libpq"),
        .target(
            name: "Workloads",
            dependencies: [
                "BenchLZ4",
                "BenchSQLite",
                "BenchLibPQ",
                .product(name: "Strata", package: strata),
                .product(name: "StrataPostgres", package: strata),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "prepare-fixtures", dependencies: ["Workloads"], path: "Sources/PrepareFixtures"),
        // One workload once, outside the harness, for a profiler (perf record, valgrind callgrind).
        .executableTarget(name: "profile-workload", dependencies: ["Workloads"], path: "Sources/ProfileWorkload"),
        // One app server of the "4 processes write" workload, launched four times at once.
        .executableTarget(name: "postgres-writer", dependencies: ["Workloads"], path: "Sources/PostgresWriter"),
        .executableTarget(
            name: "StrataBenchmarks",
            dependencies: [
                "Workloads",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Benchmarks/StrataBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
