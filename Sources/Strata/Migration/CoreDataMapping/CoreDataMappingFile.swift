import Foundation

/// A mapping model as Core Data's files hold it — an Xcode mapping model's `xcmapping.xml`
/// (`+Xcode`) or its compiled `.cdm` (`+Compiled`) — before it is checked against two models
/// and made a ``MappingModel`` (`+Mapping`).
///
/// The two files say the same things in two vocabularies: Xcode's editing objects
/// (`XDDEVENTITYMAPPING`, with `autogenerateexpression` asking for the value expressions momc
/// fills in when it compiles), and `NSEntityMapping`/`NSPropertyMapping` with every expression
/// written out.
struct CoreDataMappingFile {
    struct Entity {
        /// The mapping's name (`CarToCar`: what `destinationInstancesForEntityMappingNamed:` names).
        var name: String
        var source: String?
        var destination: String?
        /// The entities' version hashes the file was compiled against (`.cdm` only).
        var sourceHash: Data?
        var destinationHash: Data?
        var policyClassName: String?
        /// The source objects the mapping takes, when not all of its entity's: a predicate's
        /// format string.
        var sourceFilter: String?
        /// Whether the value of a property the file writes no expression for comes from the
        /// source's property of the same name (Xcode's `autogenerateexpression`; a `.cdm` has
        /// every expression written out).
        var fillsUnwrittenProperties: Bool
        var attributes: [Property]
        var relationships: [Property]
        /// Where the mapping is in the file, for errors.
        var place: String
    }

    struct Property {
        var name: String
        var expression: ValueExpression?
        /// The source property it comes from, when the file names one without an expression
        /// (Xcode's `sourcekeypath`).
        var sourceKeyPath: String?
    }

    let file: URL
    var entities: [Entity]
    /// The model versions it maps between, by the paths Xcode records (`xcmapping.xml` only):
    /// `…/Model.xcdatamodeld/Model 2.xcdatamodel`.
    var sourceModelPath: String?
    var destinationModelPath: String?

    /// The version names the recorded model paths end in (`Model 2`).
    var sourceVersionName: String? { Self.versionName(sourceModelPath) }
    var destinationVersionName: String? { Self.versionName(destinationModelPath) }

    private static func versionName(_ path: String?) -> String? {
        guard let path, !path.isEmpty else { return nil }
        return URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    }

    /// Reads the mapping model at `url`: an `.xcmappingmodel` folder, an `xcmapping.xml`, or a
    /// compiled `.cdm`.
    ///
    /// - Throws: ``ModelFileError`` naming the file and the object that is wrong.
    init(contentsOf url: URL) throws {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
        if exists && isDirectory.boolValue {
            try self.init(xcodeMappingAt: url.appendingPathComponent("xcmapping.xml"))
        } else if url.lastPathComponent == "xcmapping.xml" || url.pathExtension == "xml" {
            try self.init(xcodeMappingAt: url)
        } else {
            try self.init(compiledMappingAt: url)
        }
    }

    /// The name Xcode gives an entity mapping it does not name itself: `SourceToDestination`,
    /// or the one entity's name for an added or removed entity.
    static func defaultName(source: String?, destination: String?) -> String {
        switch (source, destination) {
        case (let source?, let destination?): "\(source)To\(destination)"
        default: destination ?? source ?? ""
        }
    }

    /// Whether `url` names a Core Data mapping model rather than Strata's JSON one.
    static func isCoreDataMapping(_ url: URL) -> Bool {
        ["xcmappingmodel", "cdm", "xml"].contains(url.pathExtension.lowercased())
    }
}

extension MappingModel {
    /// Whether `url` names a Core Data mapping model (an `.xcmappingmodel`, its `xcmapping.xml`,
    /// a `.cdm`) rather than Strata's JSON one.
    package static func isCoreDataMappingFile(_ url: URL) -> Bool {
        CoreDataMappingFile.isCoreDataMapping(url)
    }
}
