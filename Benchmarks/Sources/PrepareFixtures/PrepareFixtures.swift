import Foundation
import Workloads

/// Makes the files that the benchmarks start from, for each size given, before the benchmarks
/// run: so that no benchmark's time or peak memory includes making them.
@main enum PrepareFixtures {
    static func main() async throws {
        let sizes = CommandLine.arguments.dropFirst().compactMap { Int($0) }
        for count in sizes {
            _ = try await StrataPeer.fixture(count: count)
            _ = try await StrataPeer.fixture(count: count, sqlite: true)
            _ = try await GRDBPeer.fixture(count: count)
            _ = try await JSONPeer.fixture(count: count)
            let lz4 = try await RawLZ4Peer.fixture(count: count)
            // The hand-written format must give back what it was given, or its figures mean nothing.
            guard try RawLZ4Peer.load(lz4) == PersonRecord.generate(count: count) else {
                throw RawLZ4Peer.Failure(description: "the LZ4 fixture does not read back equal")
            }
            _ = try await LibraryStrataPeer.fixture(objects: count)
            _ = try await LibraryStrataPeer.fixture(objects: count, sqlite: true)
            _ = try await LibraryGRDBPeer.fixture(objects: count)
            if PostgresNIOPeer.serverURL != nil {
                _ = try await LibraryStrataPeer.postgresFixture(objects: count)
                _ = try await LibraryPostgresNIOPeer.fixture(objects: count)
            }
        }
        // Every peer of the Library workloads must find the same: checked on the smallest size.
        if let smallest = sizes.min() { try await LibraryAgreement.check(objects: smallest) }
        FileHandle.standardError.write(Data("fixtures for \(sizes) in \(Fixtures.folder.path)\n".utf8))
    }
}
