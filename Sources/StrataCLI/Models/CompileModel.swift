import ArgumentParser
import Foundation
import Strata

/// `strata models compile MODEL OUT`: what Xcode's momc makes of a model, so that a Linux build
/// produces the compiled model an app bundle ships: an `.xcdatamodeld` becomes a `.momd` folder,
/// an `.xcdatamodel` a `.mom` file. The output is read back and its hashes compared before the
/// command says it is done.
struct CompileModel: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile", abstract: "Compile a model as Xcode's momc does: .xcdatamodeld to .momd, .xcdatamodel to .mom.")

    @Argument(help: "An .xcdatamodeld bundle or an .xcdatamodel (or a compiled model, to compile again).")
    var model: String

    @Argument(help: "Where to write: a .momd folder for a bundle, a .mom file for a single model.")
    var output: String

    func run() throws {
        let source = try ModelSource(path: model)
        let out = URL(fileURLWithPath: output)
        if let bundle = source.bundle {
            guard out.pathExtension == "momd" else { throw CommandFailure("a model bundle compiles to a .momd folder, not \(out.lastPathComponent)") }
            try bundle.writeCompiled(to: out)
            let written = try ModelBundle(contentsOf: out)
            for (version, original) in zip(written.versions, bundle.versions)
            where version.name != original.name || version.model.entityVersionHashesByName != original.model.entityVersionHashesByName {
                throw CommandFailure("the compiled version '\(version.name)' does not read back with the hashes of '\(original.name)'")
            }
            print("Compiled \(bundle.name): \(counted(bundle.versions.count, "version")) (current '\(bundle.currentVersion.name)') to \(out.path)")
            return
        }
        guard out.pathExtension == "mom" else { throw CommandFailure("a single model compiles to a .mom file, not \(out.lastPathComponent)") }
        let (name, single) = try source.model(version: nil)
        try single.compiledModelData().write(to: out, options: .atomic)
        guard try ManagedObjectModel(contentsOf: out).entityVersionHashesByName == single.entityVersionHashesByName else {
            throw CommandFailure("the compiled model does not read back with the hashes of \(name)")
        }
        print("Compiled \(name) (\(single.entities.count == 1 ? "1 entity" : "\(single.entities.count) entities")) to \(out.path)")
    }
}
