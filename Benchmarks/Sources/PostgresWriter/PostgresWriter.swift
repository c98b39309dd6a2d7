import Foundation
import Workloads

/// One of the processes of the "many app servers" workload: writes its share of people to a
/// PostgreSQL store, a save of `batch` at a time, as one app server would.
///
///     postgres-writer strata|postgres-nio STORE-URL|SCHEMA PROCESS PROCESSES COUNT BATCH
///
/// `PROCESS` (0-based) of `PROCESSES` writes its slice of ``PersonRecord/generate(count:)``:
/// through Strata (a coordinator and a context of its own on the store at `STORE-URL`), or
/// through postgres-nio (a connection of its own to `SCHEMA`, one transaction per batch).
@main enum PostgresWriter {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count == 6, let process = Int(arguments[2]), let processes = Int(arguments[3]), let count = Int(arguments[4]),
            let batch = Int(arguments[5]), batch > 0, batch % 10 == 0, count % (processes * batch) == 0
        else {
            FileHandle.standardError.write(Data("usage: postgres-writer strata|postgres-nio STORE-URL|SCHEMA PROCESS PROCESSES COUNT BATCH\n".utf8))
            exit(2)
        }
        let share = count / processes
        let records = Array(PersonRecord.generate(count: count)[(process * share)..<((process + 1) * share)])
        switch arguments[0] {
        case "strata":
            guard let url = URL(string: arguments[1]) else { exit(2) }
            let context = try await StrataPeer.open(url)
            for start in stride(from: 0, to: records.count, by: batch) {
                try await StrataPeer.insert(records[start..<(start + batch)], into: context)
                try await StrataPeer.save(context)
            }
        case "postgres-nio":
            let connection = try await PostgresNIOPeer.open(schema: arguments[1])
            for start in stride(from: 0, to: records.count, by: batch) {
                try await PostgresNIOPeer.insert(Array(records[start..<(start + batch)]), into: connection)
            }
            try await connection.close()
        default:
            exit(2)
        }
    }
}
