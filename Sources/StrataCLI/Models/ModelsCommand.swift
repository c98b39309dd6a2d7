import ArgumentParser

/// `strata models`: look at model files.
struct ModelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "Show and compare models (.xcdatamodel folders and .xcdatamodeld bundles).",
        subcommands: [ShowModel.self, DiffModels.self]
    )
}
