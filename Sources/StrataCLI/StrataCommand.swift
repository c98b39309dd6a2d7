import ArgumentParser

/// `strata`: inspect, compare, migrate and check Strata stores and their models.
@main
struct StrataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Inspect, verify, query, dump and import Strata stores, and show and compare their models.",
        version: "0.1.0",
        subcommands: [
            InspectStore.self, VerifyStore.self, DumpStore.self, ImportStore.self, QueryStore.self, ParsePredicate.self,
            ModelsCommand.self,
        ]
    )
}
