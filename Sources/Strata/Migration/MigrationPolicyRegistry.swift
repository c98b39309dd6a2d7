/// The ``EntityMigrationPolicy`` types a program has, by the class names Core Data's mapping
/// models give them (`migrationpolicyclassname` in an `.xcmappingmodel`,
/// `NSEntityMigrationPolicyClassName` in a `.cdm`).
///
/// Core Data makes a policy from its class name at run time (`NSClassFromString`); Swift on
/// Linux has no such lookup, so a program registers each policy type once, before it reads a
/// mapping model that names it (at launch, say):
///
/// ```swift
/// MigrationPolicyRegistry.register(named: "MyApp.LocationPolicy") { LocationPolicy() }
/// ```
///
/// A name in a mapping model matches a registered name exactly; failing that, its type name
/// (what follows the last `.`) matches a registration of that type name alone, or of the same
/// type name in another module, when only one does. So `REPLACE_AT_RUNTIME.V2to3MakerPolicy` — a
/// placeholder module some projects write — finds `V2to3MakerPolicy` or `MyApp.V2to3MakerPolicy`.
///
/// Each entity mapping of each mapping model read gets a policy of its own from the factory, as
/// Core Data makes one policy object per entity mapping of a migration.
public enum MigrationPolicyRegistry {
    /// Makes a policy.
    public typealias Factory = @Sendable () -> any EntityMigrationPolicy

    private static let factories = ThreadLocked<[String: Factory]>([:])

    /// Registers `factory` under `name` (replacing any factory registered under it).
    public static func register(named name: String, _ factory: @escaping Factory) {
        factories.withLock { $0[name] = factory }
    }

    /// Removes the factory registered under `name`.
    public static func unregister(named name: String) {
        factories.withLock { $0[name] = nil }
    }

    /// A new policy for the class name a mapping model gives, if one is registered (see the
    /// matching rules above); `extra` is searched first.
    public static func policy(named name: String, in extra: [String: Factory] = [:]) -> (any EntityMigrationPolicy)? {
        let registered = factories.withLock { $0 }
        for candidates in [extra, registered] {
            if let factory = match(name, in: candidates) { return factory() }
        }
        return nil
    }

    /// How an error tells a user to register the policy a mapping names.
    static func advice(for name: String) -> String {
        let typeName = name.split(separator: ".").last.map(String.init) ?? name
        return "register it before the migration: MigrationPolicyRegistry.register(named: \"\(name)\") { \(typeName)() }"
    }

    private static func match(_ name: String, in factories: [String: Factory]) -> Factory? {
        if let exact = factories[name] { return exact }
        let typeName = typeName(of: name)
        let sameType = factories.filter { typeName == Self.typeName(of: $0.key) }
        return sameType.count == 1 ? sameType.first?.value : nil
    }

    private static func typeName(of name: String) -> Substring {
        name.split(separator: ".").last ?? Substring(name)
    }
}
