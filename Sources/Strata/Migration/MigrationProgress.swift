/// How far a migration has come.
public struct MigrationProgress: Sendable, Hashable, CustomStringConvertible {
    /// The stage of a staged migration ("Library 2 → Library 3"), or the models' names.
    public var stage: String
    /// The source entity being migrated.
    public var entity: String
    /// Objects migrated so far, all entities together.
    public var objectsDone: Int
    /// Objects in the store, when its metadata records them.
    public var totalObjects: Int?

    public var description: String {
        let total = totalObjects.map { " of \($0)" } ?? ""
        return "\(stage): \(objectsDone)\(total) objects (\(entity))"
    }
}
