import Foundation

/// How to add a store: its type, location, configuration and options. A
/// ``PersistentContainer`` adds one store per description.
///
/// A class, as Core Data's `NSPersistentStoreDescription` is, so that the description a
/// container holds is changed in place, as Core Data code changes it:
///
/// ```swift
/// let description = container.persistentStoreDescriptions.first!
/// description.setOption(true, forKey: PersistentStoreOption.persistentHistoryTracking)
/// description.setValue("OFF", forPragmaNamed: "synchronous")
/// ```
///
/// Its properties may be read and set from any thread (they are behind a lock); set them
/// before the container loads its stores.
public final class PersistentStoreDescription: @unchecked Sendable, CustomStringConvertible {
    // Sendable by proof: every stored value sits in `state`, read and written only inside its
    // lock, and the values themselves are Sendable; nothing else is mutable.
    private struct State {
        var type: StoreType
        var url: URL?
        var configuration: String?
        var options: [String: any Sendable]
        var shouldAddStoreAsynchronously = false
    }
    private let state: ThreadLocked<State>

    /// A description of a store of `type` at `url`. Automatic migration with an inferred
    /// mapping model is on, as Core Data's container sets it.
    public init(type: StoreType = .inMemory, url: URL? = nil) {
        state = ThreadLocked(
            State(
                type: type, url: url, configuration: nil,
                options: [
                    PersistentStoreOption.migratePersistentStoresAutomatically: true,
                    PersistentStoreOption.inferMappingModelAutomatically: true,
                ]))
    }

    /// Core Data's `init(url:)`: a SQLite store at `url`, as Core Data's default type.
    public convenience init(url: URL) {
        self.init(type: .sqlite, url: url)
    }

    public var type: StoreType {
        get { state.withLock { $0.type } }
        set { state.withLock { $0.type = newValue } }
    }

    /// The store's file; `nil` for a store without one.
    public var url: URL? {
        get { state.withLock { $0.url } }
        set { state.withLock { $0.url = newValue } }
    }

    /// The model configuration the store holds; `nil` for every entity.
    public var configuration: String? {
        get { state.withLock { $0.configuration } }
        set { state.withLock { $0.configuration = newValue } }
    }

    /// Options, keyed by ``PersistentStoreOption``.
    public var options: [String: any Sendable] {
        get { state.withLock { $0.options } }
        set { state.withLock { $0.options = newValue } }
    }

    /// Sets one option (`nil` removes it): Core Data's `setOption(_:forKey:)`.
    public func setOption(_ option: (any Sendable)?, forKey key: String) {
        state.withLock { $0.options[key] = option }
    }

    /// The SQLite pragmas the store runs on its connections
    /// (``PersistentStoreOption/sqlitePragmas``): Core Data's `sqlitePragmas`.
    public var sqlitePragmas: [String: any Sendable] {
        options[PersistentStoreOption.sqlitePragmas] as? [String: any Sendable] ?? [:]
    }

    /// Sets one SQLite pragma (`nil` removes it): Core Data's `setValue(_:forPragmaNamed:)`.
    public func setValue(_ value: (any Sendable)?, forPragmaNamed name: String) {
        state.withLock { state in
            var pragmas = state.options[PersistentStoreOption.sqlitePragmas] as? [String: any Sendable] ?? [:]
            pragmas[name] = value
            state.options[PersistentStoreOption.sqlitePragmas] = pragmas
        }
    }

    /// Whether the store is opened read-only.
    public var isReadOnly: Bool {
        get { options[PersistentStoreOption.readOnly] as? Bool ?? false }
        set { setOption(newValue, forKey: PersistentStoreOption.readOnly) }
    }

    /// How long, in seconds, a SQLite store waits for another connection's lock
    /// (``PersistentStoreOption/timeout``); `nil` for the store's default.
    public var timeout: Double? {
        get { options[PersistentStoreOption.timeout] as? Double }
        set { setOption(newValue, forKey: PersistentStoreOption.timeout) }
    }

    /// Whether a store written by an older model version is migrated when it is added: from the
    /// version of the model's bundle that wrote it (or the model the store carries) to the
    /// current one. With ``shouldInferMappingModelAutomatically`` (both are on by default, as
    /// in Core Data), nothing else is needed.
    public var shouldMigrateStoreAutomatically: Bool {
        get { options[PersistentStoreOption.migratePersistentStoresAutomatically] as? Bool ?? false }
        set { setOption(newValue, forKey: PersistentStoreOption.migratePersistentStoresAutomatically) }
    }

    /// Whether that migration infers its mapping model.
    public var shouldInferMappingModelAutomatically: Bool {
        get { options[PersistentStoreOption.inferMappingModelAutomatically] as? Bool ?? false }
        set { setOption(newValue, forKey: PersistentStoreOption.inferMappingModelAutomatically) }
    }

    /// Core Data's `shouldAddStoreAsynchronously`. Adding a store is `async` here whatever it
    /// says (``PersistentContainer/loadPersistentStores()`` awaits it); with the
    /// completion-handler form, ``PersistentContainer/loadPersistentStores(completionHandler:)``
    /// returns before the handler is called when it is `true`, and waits for it when `false`,
    /// as Core Data's does.
    public var shouldAddStoreAsynchronously: Bool {
        get { state.withLock { $0.shouldAddStoreAsynchronously } }
        set { state.withLock { $0.shouldAddStoreAsynchronously = newValue } }
    }

    public var description: String {
        "\(type) store\(url.map { " at \($0.path)" } ?? "")"
    }
}
