import Foundation

/// The schema of an object graph: its entities, their properties and how they relate.
///
/// A model is a value, checked when it is made: ``init(entities:versionIdentifiers:configurations:fetchRequestTemplates:)``
/// throws a ``ModelError`` for a model that cannot work. Being a value, it is `Sendable`, and a
/// coordinator's copy never changes under it. Core Data's mutable API works too — an empty
/// ``init()``, then ``entities`` set — and is checked as it is set: a model whose entities do
/// not work keeps the error in ``validationError``, and a coordinator refuses to add a store
/// for it with that error (Core Data raises when such a model is first used).
public struct ManagedObjectModel: Sendable, Hashable {
    private var storage: Storage

    /// Builds and checks a model.
    ///
    /// - Parameters:
    ///   - entities: The entities, each with its own properties; the model works out
    ///     inheritance, subentities and inverses.
    ///   - versionIdentifiers: The model version's identifiers (Xcode's
    ///     `userDefinedModelVersionIdentifier`); they play no part in compatibility.
    ///   - configurations: Named subsets of the entities (configuration name → entity names),
    ///     for coordinators whose stores each hold some of the entities.
    ///   - fetchRequestTemplates: Named fetch requests stored with the model.
    /// - Throws: ``ModelError`` naming the entity and property at fault.
    public init(
        entities: [EntityDescription], versionIdentifiers: Set<String> = [], configurations: [String: [String]] = [:],
        fetchRequestTemplates: [FetchRequestTemplate] = []
    ) throws {
        storage = try Storage(
            entities: entities, versionIdentifiers: versionIdentifiers, configurations: configurations,
            fetchRequestTemplates: fetchRequestTemplates)
    }

    /// An empty model, for Core Data's mutable API: set ``entities`` next.
    public init() {
        storage = Storage(unchecked: [], error: nil)
    }

    /// The entities, in the order they were given, with inheritance resolved.
    ///
    /// Setting them (Core Data's mutable API) checks the model again: see ``validationError``.
    /// Configurations that name an entity no longer there make it invalid too.
    public var entities: [EntityDescription] {
        get { storage.entities }
        set {
            do {
                storage = try Storage(
                    entities: newValue, versionIdentifiers: versionIdentifiers, configurations: configurations,
                    fetchRequestTemplates: fetchRequestTemplates)
            } catch {
                storage = Storage(unchecked: newValue, error: error, keeping: storage)
            }
        }
    }

    /// Why the model cannot be used, when its ``entities`` were set to something that does not
    /// work; `nil` for a working model (every model ``init(entities:versionIdentifiers:configurations:fetchRequestTemplates:)``
    /// returns). A coordinator refuses to add a store for a model with an error, with it.
    public var validationError: ModelError? { storage.error }
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
        /// Why the entities do not make a working model, for one made by setting them.
        let error: ModelError?
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
            let unlinked = try resolver.resolve()
            try resolver.checkConfigurations(configurations, templates: fetchRequestTemplates)
            let link = ModelLink(entities: Dictionary(uniqueKeysWithValues: unlinked.map { ($0.name, $0) }))
            let resolved = unlinked.map { $0.linked(to: link) }
            entities = resolved
            error = nil
            ClassEntities.record(resolved)
            IDEntities.record(resolved)
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
            link.attach(self)
        }

        /// Entities as given, unresolved: an empty model, or one whose entities do not work
        /// (with `error`), keeping `other`'s configurations, identifiers and templates.
        init(unchecked declared: [EntityDescription], error: (any Error)?, keeping other: Storage? = nil) {
            entities = declared
            layouts = [:]
            layoutsByClass = [:]
            versionHashes = [:]
            legacyVersionHashes = [:]
            versionIdentifiers = other?.versionIdentifiers ?? []
            configurations = other?.configurations ?? [:]
            fetchRequestTemplates = other?.fetchRequestTemplates ?? []
            versionHistory = []
            earlierVersions = []
            fileNotes = []
            self.error = error.map { error in
                error as? ModelError ?? ModelError(.invalidValue, entity: "", "the entities do not make a model: \(error)")
            }
        }

        private init(copying other: Storage, versionHistory: [String], earlierVersions: [ModelBundle.Version], fileNotes: [String]) {
            entities = other.entities
            error = other.error
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
            // A copy usually replaces the model it copies (a model file's reader adds its notes):
            // the entities' link answers with the copy's layouts, which are the same ones.
            layouts.values.first?.entity.modelLink.link?.attach(self)
        }

        func copy(versionHistory: [String]? = nil, earlierVersions: [ModelBundle.Version]? = nil, fileNotes: [String]? = nil) -> Storage {
            Storage(
                copying: self, versionHistory: versionHistory ?? self.versionHistory,
                earlierVersions: earlierVersions ?? self.earlierVersions, fileNotes: fileNotes ?? self.fileNotes)
        }
    }
}
