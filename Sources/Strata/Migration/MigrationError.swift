
/// A migration that cannot be done or did not finish: a mapping Strata cannot infer (every
/// reason listed), a store no known version wrote, data a change would lose, a cancelled
/// migration. The store is left as it was.
public struct MigrationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case cannotInfer, unknownSourceVersion, invalidMapping, dataLoss, missingValues, cancelled
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The lightweight rules cannot map the models; ``MigrationError/problems`` says every reason.
        public static let cannotInfer = Code(.cannotInfer)
        /// No version of the model wrote the store (or a newer one did).
        public static let unknownSourceVersion = Code(.unknownSourceVersion)
        /// A mapping model names entities or properties the models do not have, or is malformed.
        public static let invalidMapping = Code(.invalidMapping)
        /// An object's data does not fit the new model (two objects in what became a to-one
        /// relationship, a value a custom mapping could not convert).
        public static let dataLoss = Code(.dataLoss)
        /// Objects lack values the step makes required (a new required attribute without a
        /// default, an optional relationship made required): Core Data's 134110. ``MigrationError/problems``
        /// lists each object's URI with the rule; the store is unchanged.
        public static let missingValues = Code(.missingValues)
        /// The task was cancelled; the store is unchanged.
        public static let cancelled = Code(.cancelled)

        public var description: String { base.rawValue }
    }

    public var code: Code
    public var message: String
    /// Every problem found, for `.cannotInfer` and `.invalidMapping` ("Entity.property: why"),
    /// and for `.missingValues` and `.dataLoss` ("object URI: Entity.property: why").
    public var problems: [String]

    public init(_ code: Code, _ message: String, problems: [String] = []) {
        self.code = code
        self.message = message
        self.problems = problems
    }

    public var description: String {
        problems.isEmpty ? message : message + ":\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
    }
}

extension ManagedObjectModel {
    /// Throws unless this model wrote the store whose metadata is `metadata`: what every
    /// migration checks of its source before it touches a row.
    package func checkWroteStore(withMetadata metadata: [String: MetadataValue]) throws {
        let differences = incompatibleEntities(inConfiguration: nil, storeMetadata: metadata)
        guard differences.isEmpty else {
            throw MigrationError(
                .unknownSourceVersion, "the store was not written by the source model (it differs in \(differences.joined(separator: ", ")))")
        }
    }
}
