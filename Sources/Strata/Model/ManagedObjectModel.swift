import Foundation

/// The schema of an object graph: its entities, their properties and how they relate.
///
/// A model is a value, checked when it is made: ``init(entities:versionIdentifiers:)`` throws a
/// ``ModelError`` for a model that cannot work, so a coordinator never sees one. Being a value,
/// it is immutable and `Sendable` once made; to change a model, change its entities and make
/// a new one. (Core Data's models are mutable until a coordinator uses them; a value type gives
/// the same guarantee without a runtime rule.)
public struct ManagedObjectModel: Sendable, Hashable {
    private let storage: Storage

    /// Builds and checks a model.
    ///
    /// - Parameters:
    ///   - entities: The entities, each with its own properties; the model works out
    ///     inheritance, subentities and inverses.
    ///   - versionIdentifiers: The model version's identifiers (Xcode's
    ///     `userDefinedModelVersionIdentifier`); they play no part in compatibility.
    /// - Throws: ``ModelError`` naming the entity and property at fault.
    ///   - configurations: Named subsets of the entities (configuration name → entity names),
    ///     for coordinators whose stores each hold some of the entities.
    ///   - fetchRequestTemplates: Named fetch requests stored with the model.
    public init(
        entities: [EntityDescription], versionIdentifiers: Set<String> = [], configurations: [String: [String]] = [:],
        fetchRequestTemplates: [FetchRequestTemplate] = []
    ) throws {
        storage = try Storage(
            entities: entities, versionIdentifiers: versionIdentifiers, configurations: configurations,
            fetchRequestTemplates: fetchRequestTemplates)
    }

    /// The entities, in the order they were given, with inheritance resolved.
    public var entities: [EntityDescription] { storage.entities }
    /// The entities by name.
    public var entitiesByName: [String: EntityDescription] { storage.layouts.mapValues(\.entity) }
    public var versionIdentifiers: Set<String> { storage.versionIdentifiers }
    /// Named subsets of the entities: configuration name → entity names.
    public var configurations: [String: [String]] { storage.configurations }
    public var fetchRequestTemplates: [FetchRequestTemplate] { storage.fetchRequestTemplates }

    /// Each entity's version hash, by entity name: what a store records to tell which model
    /// version wrote it. These are Core Data's own hashes (`NSStoreModelVersionHashes`), so a
    /// store's metadata matches the same model whichever of the two wrote it.
    public var entityVersionHashesByName: [String: Data] { storage.versionHashes }

    /// The hashes Strata recorded before it used Core Data's, to recognise stores written then.
    var legacyEntityVersionHashesByName: [String: Data] { storage.legacyVersionHashes }

    /// The entities of a configuration; every entity for `nil`.
    public func entities(forConfigurationName name: String?) -> [EntityDescription] {
        guard let name, let members = configurations[name] else { return entities }
        let names = Set(members)
        return entities.filter { names.contains($0.name) }
    }

    /// The entity named `name`, if the model has it.
    public func entity(named name: String) -> EntityDescription? {
        storage.layouts[name]?.entity
    }

    /// For a model read from a model file: what the reader coerced, as Core Data does, each as
    /// "Entity.attribute: what the file says, and what it was taken as" (a decimal default on an
    /// integer attribute, say). Empty for a model made in Swift.
    public var fileNotes: [String] { storage.fileNotes }

    /// The same model, with the notes its file's reader took.
    func withFileNotes(_ notes: [String]) -> ManagedObjectModel {
        notes.isEmpty ? self : ManagedObjectModel(storage: storage.copy(fileNotes: notes))
    }

    /// For a model from a ``ModelBundle``: the names of the bundle's versions up to this one.
    package var versionHistory: [String] { storage.versionHistory }

    /// For a model from a ``ModelBundle``: the bundle's versions before this one, oldest first.
    /// What the coordinator finds a store's source model among when it migrates the store on
    /// open, as Core Data searches the app's bundles.
    package var earlierVersions: [ModelBundle.Version] { storage.earlierVersions }

    /// The same model, as a version of a bundle whose versions up to it are `history`, after
    /// the versions `earlier`.
    func withVersionHistory(_ history: [String], earlier: [ModelBundle.Version]) -> ManagedObjectModel {
        ManagedObjectModel(storage: storage.copy(versionHistory: history, earlierVersions: earlier))
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// The storage layout of the entity named `name`.
    package func layout(for name: String) -> EntityLayout? {
        storage.layouts[name]
    }

    /// Whether any entity has a uniqueness constraint: a commit skips checking them when none has.
    var hasUniquenessConstraints: Bool {
        storage.layouts.values.contains { !$0.uniquenessConstraints.isEmpty }
    }

    /// The concrete entities whose class is `type`, by layout.
    func layouts(forClass type: ManagedObject.Type) -> [EntityLayout] {
        storage.layoutsByClass[ObjectIdentifier(type)] ?? []
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.entities == rhs.entities && lhs.versionIdentifiers == rhs.versionIdentifiers
                && lhs.configurations == rhs.configurations && lhs.fetchRequestTemplates == rhs.fetchRequestTemplates)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(entities)
        hasher.combine(versionIdentifiers)
    }
}

extension ManagedObjectModel {
    /// The checked, resolved model, shared by every copy of the value.
    final class Storage: Sendable {
        let entities: [EntityDescription]
        let layouts: [String: EntityLayout]
        let versionIdentifiers: Set<String>
        let configurations: [String: [String]]
        let fetchRequestTemplates: [FetchRequestTemplate]
        let versionHashes: [String: Data]
        let legacyVersionHashes: [String: Data]
        let versionHistory: [String]
        let earlierVersions: [ModelBundle.Version]
        let fileNotes: [String]
        /// Concrete entities by class, for `init(context:)`.
        let layoutsByClass: [ObjectIdentifier: [EntityLayout]]

        init(
            entities declared: [EntityDescription], versionIdentifiers: Set<String>, configurations: [String: [String]],
            fetchRequestTemplates: [FetchRequestTemplate]
        ) throws {
            var resolver = ModelResolver(entities: declared)
            let resolved = try resolver.resolve()
            try resolver.checkConfigurations(configurations, templates: fetchRequestTemplates)
            entities = resolved
            versionHashes = resolver.versionHashes
            legacyVersionHashes = resolver.legacyVersionHashes
            self.configurations = configurations
            self.fetchRequestTemplates = fetchRequestTemplates
            var layouts: [String: EntityLayout] = [:]
            let byName = Dictionary(uniqueKeysWithValues: resolved.map { ($0.name, $0) })
            for entity in resolved {
                layouts[entity.name] = EntityLayout(entity: entity, entities: byName)
            }
            self.layouts = layouts
            self.versionIdentifiers = versionIdentifiers
            versionHistory = []
            earlierVersions = []
            fileNotes = []
            layoutsByClass = Dictionary(
                grouping: resolved.filter { !$0.isAbstract }.compactMap { layouts[$0.name] },
                by: { ObjectIdentifier($0.entity.managedObjectClass) })
        }

        private init(copying other: Storage, versionHistory: [String], earlierVersions: [ModelBundle.Version], fileNotes: [String]) {
            entities = other.entities
            layouts = other.layouts
            versionIdentifiers = other.versionIdentifiers
            configurations = other.configurations
            fetchRequestTemplates = other.fetchRequestTemplates
            versionHashes = other.versionHashes
            legacyVersionHashes = other.legacyVersionHashes
            layoutsByClass = other.layoutsByClass
            self.versionHistory = versionHistory
            self.earlierVersions = earlierVersions
            self.fileNotes = fileNotes
        }

        func copy(versionHistory: [String]? = nil, earlierVersions: [ModelBundle.Version]? = nil, fileNotes: [String]? = nil) -> Storage {
            Storage(
                copying: self, versionHistory: versionHistory ?? self.versionHistory,
                earlierVersions: earlierVersions ?? self.earlierVersions, fileNotes: fileNotes ?? self.fileNotes)
        }
    }
}
