import ArgumentParser

/// `strata models`: look at model files.
struct ModelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "Show, compare and compile models (.xcdatamodel folders, .xcdatamodeld bundles, compiled .mom and .momd).",
        subcommands: [ShowModel.self, DiffModels.self, CompileModel.self]
    )
}
