import ArgumentParser
import Logging

/// `strata`: inspect, compare, migrate and check Strata stores and their models.
@main
struct StrataCommand: AsyncParsableCommand {
    /// The library logs what it does at `info`; the tool shows warnings and errors only, on stderr.
    static func main() async {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Inspect, verify, query, dump, import and migrate Strata stores, and show and compare their models.",
        version: "0.1.0",
        subcommands: [
            InspectStore.self, VerifyStore.self, DumpStore.self, ImportStore.self, QueryStore.self, UpdateStore.self, DeleteStore.self, HistoryCommand.self, ParsePredicate.self,
            MigrateStore.self,
            ModelsCommand.self,
        ]
    )
}
