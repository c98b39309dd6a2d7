import Foundation
import Testing

/// `Samples/AppServers`: two app-server processes on one PostgreSQL database, each hearing the
/// other's saves; A ships one of B's orders and B sees it.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] != nil, "needs STRATA_POSTGRES_URL"))
struct AppServersSampleTests {
    @Test func eachServerSeesTheOthersOrdersAndUpdates() async throws {
        let result = try await StrataTool.run([], product: "app-servers-sample")
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n").map(String.init)
        for server in ["A", "B"] {
            for number in 1...3 { #expect(lines.contains("[\(server)] took order \(server)-\(number)")) }
            #expect(lines.contains { $0.hasPrefix("[\(server)] heard a save by another server") }, "\(result.output)")
        }
        #expect(lines.contains("[A] shipped B-1"))
        #expect(lines.contains("[B] sees that A shipped its order B-1"), "\(result.output)")
        #expect(lines.contains("the database holds: A-1 new, A-2 new, A-3 new, B-1 shipped by A, B-2 new, B-3 new"))
        #expect(lines.last?.hasPrefix("dropped the schema app_servers_") == true)
    }
}
