/// What a finished migration stage did beyond mapping: the values it filled in.
public struct MigrationReport: Sendable, Hashable {
    /// The stage, as "From → To" (or the manager's ``MigrationManager/stageName``).
    public var stage: String
    /// "Entity.attribute" → how many objects got the attribute's default or its type's zero
    /// value because they lacked a value the step made required (``MigrationManager/fillsMissingValues``).
    public var filledValues: [String: Int]

    public init(stage: String, filledValues: [String: Int] = [:]) {
        self.stage = stage
        self.filledValues = filledValues
    }
}
