import ArgumentParser

/// `strata`: inspect, compare, migrate and check Strata stores and their models.
@main
struct StrataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Inspect Strata models and stores.",
        version: "0.1.0",
        subcommands: [ModelsCommand.self]
    )
}
