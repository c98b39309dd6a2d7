import Foundation
import Logging

extension PersistentStoreCoordinator {
    /// Migrates a store file written by another version of the model before it is added, when
    /// the options ask for it (``PersistentStoreOption/migratePersistentStoresAutomatically``),
    /// as Core Data does: with ``PersistentStoreOption/inferMappingModelAutomatically`` as well,
    /// the two options alone do it; a Core Data mapping model found for a step (among
    /// ``PersistentStoreOption/mappingModelLocations`` and the program's resources) is used for
    /// it in preference to inference, and without inference. Stores that are new or current are
    /// left alone.
    ///
    /// The store's source model is the first found whose version hashes match the store's:
    /// among the earlier versions of the coordinator's model's bundle (a model read from an
    /// `.xcdatamodeld` knows them), then the model the store carries (a SQLite store's
    /// `Z_MODELCACHE`, or the model Strata keeps in a store's metadata), as Core Data searches
    /// bundles and then the store's cache. From a bundle version, the store steps through each
    /// later version with an inferred mapping (see `migrationSteps`); from the store's own
    /// model, one mapping is inferred to the current one. Binary stores are rewritten; SQLite
    /// stores migrate in place, in SQL, in one transaction; PostgreSQL stores in place, in one
    /// transaction of the database. A ``PersistentStoreOption/migrator``,
    /// when given, does the migration instead (a staged plan with custom stages).
    func migrateIfNeeded(type: StoreType, configuration: String?, url: URL, options: [String: any Sendable]) async throws {
        guard options[PersistentStoreOption.migratePersistentStoresAutomatically] as? Bool == true,
            options[PersistentStoreOption.skipsModelVersionCheck] as? Bool != true,
            let metadata = try existingStoreMetadata(type: type, at: url),
            metadata[PersistentStore.modelVersionHashesKey] != nil,
            !managedObjectModel.isConfiguration(configuration, compatibleWithStoreMetadata: metadata)
        else { return }
        let infers = options[PersistentStoreOption.inferMappingModelAutomatically] as? Bool ?? false
        if let migrator = options[PersistentStoreOption.migrator] as? any StoreMigrator {
            logger.info("migrating the store to the current model", metadata: ["store": "\(url.path)"])
            try await migrator.migrateStore(at: url, type: type, metadata: metadata, to: managedObjectModel, inferMappingModel: infers)
            return
        }
        guard StoreFileMigration.canMigrate(type) else {
            throw PersistenceError(
                .incompatibleStore,
                "the store \(url.path) was written by another version of the model; Strata migrates binary, SQLite and atomic (XML) store files, "
                    + "and a store of type \(type) needs a migrator of its own (PersistentStoreOption.migrator)")
        }
        let mappingFiles = MappingModelSearch.read(
            at: (options[PersistentStoreOption.mappingModelLocations] as? [URL] ?? []) + PersistentContainer.resourceDirectories(bundles: nil))
        let steps = try migrationSteps(forStoreAt: url, type: type, metadata: metadata, mappingFiles: mappingFiles, infers: infers)
        logger.info("migrating the store to the current model", metadata: ["store": "\(url.path)", "steps": "\(steps.map(\.name))"])
        _ = try await StoreFileMigration.migrate(storeAt: url, type: type, steps: steps, fillsMissingValues: false, backup: nil) { _ in }
    }

    /// The metadata of the store at `url`, or `nil` when there is none yet (no file, an empty
    /// one, or a database schema without a store).
    private func existingStoreMetadata(type: StoreType, at url: URL) throws -> [String: MetadataValue]? {
        if let storeClass = StoreFileMigration.inPlaceStoreClass(type) { return try storeClass.existingMetadata(at: url) }
        if StoreFileMigration.hasNoStoreFile(at: url) { return nil }
        return try Self.metadataForPersistentStore(type: type, at: url)
    }

    /// The steps from the store's version to the coordinator's model. From a version of the
    /// model's bundle, one step per later version, as a staged migration walks them: a property
    /// renamed in one version and kept under its new name afterwards carries its values, where
    /// Core Data's one inferred mapping would lose them once a later version drops the renaming
    /// identifier (the three `CoreDataMigration_Example` stores show it). When a step cannot be
    /// inferred, the one mapping straight to the current model is tried, as Core Data would.
    ///
    /// A Core Data mapping model among `mappingFiles` that maps a step's two models is that
    /// step's mapping, in preference to inference, as Core Data prefers a mapping model it finds
    /// in the app's bundles (`MappingModelSearch`); without one, the step is inferred when
    /// `infers`, else the migration is refused.
    private func migrationSteps(
        forStoreAt url: URL, type: StoreType, metadata: [String: MetadataValue], mappingFiles: [CoreDataMappingFile], infers: Bool
    ) throws -> [MigrationStep] {
        let source = try sourceModel(forStoreAt: url, type: type, metadata: metadata)
        let currentName = managedObjectModel.versionHistory.last ?? "the current model"
        let current = ModelBundle.Version(name: currentName, model: managedObjectModel)
        let step = { (old: ModelBundle.Version, new: ModelBundle.Version) throws -> MigrationStep in
            let name = "\(old.name) → \(new.name)"
            if let found = try MappingModelSearch.mapping(from: old, to: new, among: mappingFiles) {
                return MigrationStep(source: old.model, destination: new.model, mapping: found.mapping, name: "\(name) (\(found.file.lastPathComponent))")
            }
            guard infers else {
                throw PersistenceError(
                    .incompatibleStore,
                    "the store \(url.path) was written by another version of the model, and migrating it (\(name)) needs a mapping: "
                        + "ship a mapping model (.cdm or .xcmappingmodel) among the program's resources or in "
                        + "PersistentStoreOption.mappingModelLocations, turn on inferring it (shouldInferMappingModelAutomatically), or "
                        + "give a migrator with custom stages (PersistentStoreOption.migrator)")
            }
            return MigrationStep(source: old.model, destination: new.model, mapping: try MappingModel.inferred(from: old.model, to: new.model), name: name)
        }
        let direct = { [source] in [try step(ModelBundle.Version(name: source.name, model: source.model), current)] }
        guard let start = source.index else { return try direct() }
        let chain = Array(managedObjectModel.earlierVersions[start...]) + [current]
        do {
            return try zip(chain, chain.dropFirst()).map(step)
        } catch let staged as MigrationError {
            guard let steps = try? direct() else { throw staged }
            return steps
        }
    }

    /// The model that wrote the store, a name for it, and its place among the model's earlier
    /// versions (`nil` for the model cached in the store).
    ///
    /// - Throws: ``PersistenceError`` with code `.storeFromNewerModel` when a later version of
    ///   the model's bundle wrote it, `.incompatibleStore` when no model this program has (nor
    ///   the store itself) did.
    private func sourceModel(
        forStoreAt url: URL, type: StoreType, metadata: [String: MetadataValue]
    ) throws -> (model: ManagedObjectModel, name: String, index: Int?) {
        let matching = managedObjectModel.earlierVersions.filter { $0.model.isConfiguration(nil, compatibleWithStoreMetadata: metadata) }
        var written: [String] = []
        if case .array(let history)? = metadata[PersistentStore.modelVersionHistoryKey] { written = history.compactMap(\.stringValue) }
        // Any matching version infers the same mapping; the one the store names is the truest name.
        if let version = matching.first(where: { $0.name == written.last }) ?? matching.first,
            let index = managedObjectModel.earlierVersions.firstIndex(of: version)
        {
            return (version.model, version.name, index)
        }
        let known = managedObjectModel.versionHistory
        if !known.isEmpty, written.count > known.count, Array(written.prefix(known.count)) == known {
            throw PersistenceError(
                .storeFromNewerModel,
                "the store \(url.path) was written by version '\(written.last ?? "")' of the model, newer than any this program "
                    + "knows (newest: '\(known.last ?? "")'); open it with a newer version of the program")
        }
        let cached: ManagedObjectModel? = type == .sqlite
            ? try? SQLiteStore.cachedModel(ofStoreAt: url) : try? ManagedObjectModel(cachedInStoreMetadata: metadata)
        if let cached, cached.isConfiguration(nil, compatibleWithStoreMetadata: metadata) {
            return (cached, "the model cached in the store", nil)
        }
        throw PersistenceError(
            .incompatibleStore,
            "the store \(url.path) was written by another version of the model, and no model this program has wrote it: not the "
                + "versions before the current one\(known.isEmpty ? " (the model was not read from a model bundle)" : ""), nor a model "
                + "cached in the store. Open it with the model bundle (.xcdatamodeld) that has the version that wrote it")
    }
}
