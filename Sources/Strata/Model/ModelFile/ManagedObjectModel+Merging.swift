import Foundation

/// Core Data's ways to make one model of several: `init(byMerging:)` and
/// `mergedModel(from:)`, which Xcode's templates and libraries with models of their own use.
extension ManagedObjectModel {
    /// One model with the entities, configurations and fetch request templates of all of
    /// `models`; `nil` when they conflict (two entities or two templates of one name, or
    /// entities that do not make a working model together), as Core Data's.
    ///
    /// Entities keep their parents and relationships by name, so a relationship may point at
    /// an entity of another of the models.
    public init?(byMerging models: [ManagedObjectModel]?) {
        guard let models else { return nil }
        var entities: [EntityDescription] = []
        var configurations: [String: [String]] = [:]
        var templates: [FetchRequestTemplate] = []
        var identifiers: Set<String> = []
        for model in models {
            entities += model.entities
            templates += model.fetchRequestTemplates
            identifiers.formUnion(model.versionIdentifiers)
            for (name, members) in model.configurations {
                configurations[name, default: []] += members.filter { !(configurations[name] ?? []).contains($0) }
            }
        }
        guard Set(templates.map(\.name)).count == templates.count,
            let merged = try? ManagedObjectModel(
                entities: entities, versionIdentifiers: identifiers, configurations: configurations,
                fetchRequestTemplates: templates)
        else { return nil }
        self = merged
    }

    /// The models found at the top level of `bundles`' resources, merged as
    /// ``init(byMerging:)`` merges them; `nil` when there is none, one does not read, or they
    /// conflict. For `nil`, the places ``PersistentContainer/init(name:bundles:)`` looks: the
    /// main bundle, then the SwiftPM resource bundles beside the program.
    ///
    /// Core Data looks for compiled models (`.momd`, `.mom`). Swift packages on Linux cannot
    /// compile models, so a package may ship the `.xcdatamodeld` itself: a model is taken
    /// compiled when it is there compiled, and from its Xcode file otherwise. A versioned
    /// model gives its current version.
    public static func mergedModel(from bundles: [Bundle]?) -> ManagedObjectModel? {
        var models: [ManagedObjectModel] = []
        for folder in PersistentContainer.resourceDirectories(bundles: bundles) {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { continue }
            for file in modelFiles(among: names) {
                guard let model = try? ManagedObjectModel(contentsOf: folder.appendingPathComponent(file)) else {
                    return nil
                }
                models.append(model)
            }
        }
        return models.isEmpty ? nil : ManagedObjectModel(byMerging: models)
    }

    /// The model files among a folder's `names`, one per model: compiled before Xcode's.
    static func modelFiles(among names: [String]) -> [String] {
        let preference = ["momd", "mom", "xcdatamodeld", "xcdatamodel"]
        var chosen: [String: String] = [:]
        for name in names.sorted() {
            let url = URL(fileURLWithPath: name)
            guard let rank = preference.firstIndex(of: url.pathExtension) else { continue }
            let base = url.deletingPathExtension().lastPathComponent
            if let current = chosen[base],
                let currentRank = preference.firstIndex(of: URL(fileURLWithPath: current).pathExtension),
                currentRank <= rank
            {
                continue
            }
            chosen[base] = name
        }
        return chosen.keys.sorted().compactMap { chosen[$0] }
    }
}
