import Foundation

/// A model file that cannot be read: malformed XML, an element or value Strata cannot
/// understand, a bundle without versions, or a model that is not sound. Says the file and,
/// where it can, the line.
public struct ModelFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong with the file.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case unreadable, malformedXML, notAModel, missingAttribute, unknownAttributeType, invalidValue
            case invalidModel, noVersions, unknownVersion, malformedModelCache, versionInfoMismatch
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The file or folder cannot be read.
        public static let unreadable = Code(.unreadable)
        /// The XML is not well formed.
        public static let malformedXML = Code(.malformedXML)
        /// The file is XML, but not a Core Data model.
        public static let notAModel = Code(.notAModel)
        /// An element lacks an attribute it needs (an entity without a name, say).
        public static let missingAttribute = Code(.missingAttribute)
        /// An attribute's `attributeType` is not one Strata knows.
        public static let unknownAttributeType = Code(.unknownAttributeType)
        /// A value (a default, a bound, a delete rule) cannot be understood.
        public static let invalidValue = Code(.invalidValue)
        /// The file reads, but the model it describes is not sound; see ``ModelFileError/modelError``.
        public static let invalidModel = Code(.invalidModel)
        /// A model bundle holds no model version.
        public static let noVersions = Code(.noVersions)
        /// Core Data's model cache in a SQLite store (`Z_MODELCACHE`) is damaged, or holds what
        /// Strata cannot rebuild; open the store with its model instead.
        public static let malformedModelCache = Code(.malformedModelCache)
        /// A version name that the bundle does not have.
        public static let unknownVersion = Code(.unknownVersion)
        /// A compiled model bundle's `VersionInfo.plist` gives a version other entity hashes than
        /// the version's `.mom` has (the message says which).
        public static let versionInfoMismatch = Code(.versionInfoMismatch)

        public var description: String { base.rawValue }
    }

    public var code: Code
    /// The file at fault.
    public var file: String
    /// The line in the file, when known (1-based).
    public var line: Int?
    public var message: String
    /// The model's own error, for `.invalidModel`.
    public var modelError: ModelError?

    init(_ code: Code, file: URL, line: Int? = nil, _ message: String, modelError: ModelError? = nil) {
        self.code = code
        self.file = file.path
        self.line = line
        self.message = message
        self.modelError = modelError
    }

    public var description: String {
        "\(file)\(line.map { ":\($0)" } ?? ""): \(message)"
    }
}
