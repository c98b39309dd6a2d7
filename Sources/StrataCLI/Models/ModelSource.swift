import Foundation
import Strata

/// A model named on the command line: a bundle of versions or a single model.
struct ModelSource {
    let url: URL
    private let content: Content

    private enum Content {
        case bundle(ModelBundle)
        case model(ManagedObjectModel)
    }

    init(path: String) throws {
        url = URL(fileURLWithPath: path)
        content = ["xcdatamodeld", "momd"].contains(url.pathExtension)
            ? .bundle(try ModelBundle(contentsOf: url)) : .model(try ManagedObjectModel(contentsOf: url))
    }

    /// The bundle's versions, when the path is an `.xcdatamodeld`.
    var bundle: ModelBundle? {
        if case .bundle(let bundle) = content { return bundle }
        return nil
    }

    /// The model of a version (by name), or the current one.
    func model(version name: String?) throws -> (name: String, model: ManagedObjectModel) {
        switch content {
        case .bundle(let bundle):
            let version = try name.map { try bundle.version(named: $0) } ?? bundle.currentVersion
            return (version.name, version.model)
        case .model(let model):
            if let name {
                throw CommandFailure("--version \(name) needs a model bundle (.xcdatamodeld), not \(url.lastPathComponent)")
            }
            return (url.deletingPathExtension().lastPathComponent, model)
        }
    }
}

/// A failure to report on stderr, with no stack trace.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
