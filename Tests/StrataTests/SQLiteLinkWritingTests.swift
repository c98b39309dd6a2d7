import Foundation
@testable import Strata
import Testing

/// The SQLite store writes to-many links row by row, through the same save writer as the
/// PostgreSQL store: a link both its ends write is written once from one side, a link to a new
/// object unchecked. Each relationship must read back as the context held it (Core Data's
/// to-many relationships: unordered ones as the same set, ordered ones in the same order), on
/// ``PostgresBatchedLinkTests``' data.
struct SQLiteLinkWritingTests {
    @Test(arguments: [2, 3_000])
    func everyLinkAndPositionReadsBackAsSaved(count: Int) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (saved, read) = try await PostgresBatchedLinkTests.saveAndReadBack(
            count: count, at: directory.appendingPathComponent("links.sqlite"), type: .sqlite)
        #expect(read.count == saved.count)
        let differing = saved.filter { read[$0.key] != $0.value }.keys.sorted()
        #expect(differing.isEmpty, "\(differing.count) objects read back otherwise, first \(differing.prefix(3).map { "\($0): saved \(saved[$0] ?? []), read \(read[$0] ?? [])" })")
    }
}
