/// One change of an observed object (``ManagedObjectContext/changes(ofObjectWith:)``): the
/// properties whose values changed since the observer last took a change, or its deletion.
public struct ObjectChange: Sendable, Hashable {
    /// The names of the attributes and relationships whose values changed.
    public let changedKeys: Set<String>
    /// Whether the object was deleted (the last change told).
    public let isDeleted: Bool

    public init(changedKeys: Set<String>, isDeleted: Bool) {
        self.changedKeys = changedKeys
        self.isDeleted = isDeleted
    }
}
