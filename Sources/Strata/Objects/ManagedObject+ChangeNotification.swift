/// What Core Data's change bookkeeping tells about an object beyond ``ManagedObject/hasChanges``.
extension ManagedObject {
    /// Whether any stored (not transient) property differs from what the store holds: Core
    /// Data's `hasPersistentChangedValues`. A new object has; a deleted one has not, unless
    /// changed too.
    public var hasPersistentChangedValues: Bool {
        if isInserted { return true }
        guard isUpdated, let snapshot else { return false }
        return !persistentChangedKeys(from: snapshot).isEmpty
    }
}
