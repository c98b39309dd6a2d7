/// What Core Data's change bookkeeping tells about an object beyond ``ManagedObject/hasChanges``.
extension ManagedObject {
    /// Whether any stored (not transient) property differs from what the store holds: Core
    /// Data's `hasPersistentChangedValues`. A new object has; a deleted one has not, unless
    /// changed too.
    public var hasPersistentChangedValues: Bool {
        if isInserted { return true }
        guard isUpdated, let snapshot else { return false }
        let transient = Set(layout.attributes.filter(\.isTransient).map(\.name) + layout.relationships.filter(\.isTransient).map(\.name))
        return changedKeys(from: snapshot).contains { !transient.contains($0) }
    }
}
