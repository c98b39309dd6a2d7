import Foundation

extension MigrationPlan {
    /// Reads a Core Data mapping model — an Xcode `.xcmappingmodel` or a compiled `.cdm` — and
    /// makes it the custom stage between the two consecutive versions of the bundle it maps
    /// (an Xcode mapping names them by path; a compiled one by its entities' version hashes).
    /// The stage replaces inference for that step, as Core Data prefers a mapping model it finds
    /// to an inferred one.
    ///
    /// - Parameters:
    ///   - url: The mapping model: an `.xcmappingmodel` folder or a `.cdm` file.
    ///   - policies: Policy factories by class name, searched before
    ///     ``MigrationPolicyRegistry``.
    /// - Returns: The stage added.
    /// - Throws: ``MigrationError`` `.invalidMapping` when no two consecutive versions are the
    ///   ones it maps, or the file does not fit them (every problem listed); ``ModelFileError``
    ///   for a file that cannot be read.
    @discardableResult
    public mutating func addMappingModel(at url: URL, policies: [String: MigrationPolicyRegistry.Factory] = [:]) throws -> MigrationStage {
        try addMappingModel(at: url, policies: policies, requiringPolicies: true)
    }

    /// As ``addMappingModel(at:policies:)``; with `requiringPolicies` off, a policy nobody
    /// registered leaves the mapping with its class name only (``EntityMapping/policyClassName``),
    /// for a tool that shows the plan, and the migration refuses it if it is run.
    @discardableResult
    package mutating func addMappingModel(
        at url: URL, policies: [String: MigrationPolicyRegistry.Factory], requiringPolicies: Bool
    ) throws -> MigrationStage {
        let file = try CoreDataMappingFile(contentsOf: url)
        let versions = bundle.versions
        for (old, new) in zip(versions, versions.dropFirst())
        where file.maps(from: old.model, to: new.model, sourceVersion: old.name, destinationVersion: new.name) {
            let stage = MigrationStage.custom(
                from: old.name, to: new.name, mapping: try file.mappingModel(from: old.model, to: new.model, policies: policies, requiringPolicies: requiringPolicies))
            customStages.removeAll { $0.fromVersion == old.name }
            customStages.append(stage)
            return stage
        }
        let maps =
            file.sourceModelPath.map { "\($0) → \(file.destinationModelPath ?? "?")" }
            ?? "entities whose version hashes are those of no two consecutive versions"
        throw MigrationError(
            .invalidMapping,
            "the mapping model \(url.lastPathComponent) maps \(maps); the consecutive versions of \(bundle.name) are "
                + versions.map(\.name).joined(separator: ", "))
    }
}
