import Foundation

/// The whole stack in one object: a model, a coordinator with its stores, a main-queue view
/// context, and background contexts on demand.
///
/// ```swift
/// let container = PersistentContainer(name: "Library", managedObjectModel: model)
/// try await container.loadPersistentStores()
/// try await container.performBackgroundTask { context in
///     let book = try Book(context: context)
///     book.title = "Notes"
///     try context.save()
/// }
/// ```
///
/// Open for subclassing, as Core Data's: a subclass overrides ``defaultDirectoryURL()`` to keep
/// its stores elsewhere (Core Data code does it for an app group), or adds methods. The
/// container is `Sendable` — shared between tasks — so Swift asks a subclass to restate it
/// (`class AppContainer: PersistentContainer, @unchecked Sendable`): a subclass that adds
/// mutable stored properties must guard them with a lock of its own.
// Safe to share: every stored property is a `let` of a `Sendable` type, and the descriptions
// are read and written only under their lock. Subclasses restate the conformance themselves
// (Swift warns until they do), and answer for what they add.
open class PersistentContainer: @unchecked Sendable {
    public let name: String
    public let managedObjectModel: ManagedObjectModel
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The main-queue context, for code on the main actor.
    public let viewContext: ManagedObjectContext
    private let descriptions: ThreadLocked<[PersistentStoreDescription]>

    /// A container for `model`, with one store description: a SQLite store named after the
    /// container (`<name>.sqlite`) in ``defaultDirectoryURL()``, as Core Data's container puts its
    /// SQLite store in Application Support. For Strata's binary store instead, set
    /// ``persistentStoreDescriptions`` to `[PersistentStoreDescription(type: .binary, url: …)]`.
    public init(name: String, managedObjectModel: ManagedObjectModel) {
        self.name = name
        self.managedObjectModel = managedObjectModel
        persistentStoreCoordinator = PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        viewContext = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: persistentStoreCoordinator)
        let url = Self.defaultDirectoryURL().appendingPathComponent("\(name).sqlite")
        descriptions = ThreadLocked([PersistentStoreDescription(type: .sqlite, url: url)])
    }

    /// A container for the model called `name`, found among the program's resources, as Core
    /// Data users write it: `PersistentContainer(name: "Library")`.
    ///
    /// The model is `<name>.xcdatamodeld` (its current version) or `<name>.xcdatamodel`, looked
    /// for in `bundles` when given, else in the main bundle, then in every SwiftPM resource
    /// bundle beside the program (`<Package>_<Target>.resources` on Linux, `.bundle` on Apple
    /// platforms: what a target's `resources: [.copy("Library.xcdatamodeld")]` makes).
    ///
    /// - Throws: ``ModelFileError`` with code `.unreadable` listing every place it looked, when
    ///   no such model is there; or the model file's own error.
    public convenience init(name: String, bundles: [Bundle]? = nil) throws {
        let url = try Self.modelURL(named: name, in: Self.resourceDirectories(bundles: bundles))
        self.init(name: name, managedObjectModel: try ManagedObjectModel(contentsOf: url))
    }

    /// Where ``init(name:bundles:)`` looks, in order.
    static func resourceDirectories(bundles: [Bundle]?) -> [URL] {
        if let bundles { return bundles.compactMap { $0.resourceURL ?? $0.bundleURL } }
        var directories: [URL] = []
        let main = Bundle.main
        for url in [main.resourceURL, main.bundleURL].compactMap({ $0 }) where !directories.contains(url) {
            directories.append(url)
        }
        // SwiftPM puts a target's resources in a folder beside the executable.
        let executableFolder = (main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).deletingLastPathComponent()
        let beside = (try? FileManager.default.contentsOfDirectory(atPath: executableFolder.path)) ?? []
        for entry in beside.sorted() where entry.hasSuffix(".resources") || entry.hasSuffix(".bundle") {
            let folder = executableFolder.appendingPathComponent(entry)
            // On Apple platforms a .bundle keeps its resources in Contents/Resources.
            let resources = folder.appendingPathComponent("Contents/Resources")
            directories.append(FileManager.default.fileExists(atPath: resources.path) ? resources : folder)
        }
        return directories
    }

    /// The first `<name>.momd` (the compiled model an app bundle carries, as Core Data looks
    /// for it), else `<name>.mom`, `<name>.xcdatamodeld`, `<name>.xcdatamodel`, in `directories`.
    package static func modelURL(named name: String, in directories: [URL]) throws -> URL {
        for directory in directories {
            for suffix in ["momd", "mom", "xcdatamodeld", "xcdatamodel"] {
                let candidate = directory.appendingPathComponent("\(name).\(suffix)")
                if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            }
        }
        let places = directories.isEmpty ? "nowhere (no bundle was given)" : directories.map(\.path).joined(separator: ", ")
        throw ModelFileError(
            .unreadable, file: URL(fileURLWithPath: "\(name).xcdatamodeld"),
            "no model named '\(name)' (\(name).xcdatamodeld or \(name).xcdatamodel) among the program's resources; looked in: "
                + places + ". Ship it as a resource (resources: [.copy(\"\(name).xcdatamodeld\")]) or pass the model itself")
    }

    /// The stores ``loadPersistentStores()`` adds; change them before loading.
    public var persistentStoreDescriptions: [PersistentStoreDescription] {
        get { descriptions.withLock { $0 } }
        set { descriptions.withLock { $0 = newValue } }
    }

    /// Adds a store for every description, in order, creating the folders of file stores.
    ///
    /// - Returns: The stores added.
    /// - Throws: The first error a store gave; the stores before it stay added.
    @discardableResult
    public func loadPersistentStores() async throws -> [PersistentStore] {
        var stores: [PersistentStore] = []
        for description in persistentStoreDescriptions {
            stores.append(try await Self.add(description, to: persistentStoreCoordinator))
        }
        return stores
    }

    private static func add(
        _ description: PersistentStoreDescription, to coordinator: PersistentStoreCoordinator
    ) async throws -> PersistentStore {
        if let folder = description.url?.deletingLastPathComponent() {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        return try await coordinator.addPersistentStore(
            type: description.type, configuration: description.configuration, at: description.url,
            options: description.options)
    }

    /// Adds a store for every description, calling `completionHandler` once per description
    /// with the error, if any: Core Data's completion-handler form.
    ///
    /// As Core Data's, it adds the stores before it returns, calling the handler on the calling
    /// thread, unless the descriptions ask to be added asynchronously
    /// (``PersistentStoreDescription/shouldAddStoreAsynchronously``, `false` by default): then
    /// it returns at once and the handler is called later, on another thread. Called from
    /// `async` code (a task), it does not block its thread on work that needs the same threads:
    /// it returns at once there too — in `async` code, `try await loadPersistentStores()`.
    public func loadPersistentStores(
        completionHandler: @escaping @Sendable (PersistentStoreDescription, (any Error)?) -> Void
    ) {
        let descriptions = persistentStoreDescriptions
        let coordinator = persistentStoreCoordinator
        let load: @Sendable () async -> [(PersistentStoreDescription, (any Error)?)] = {
            var results: [(PersistentStoreDescription, (any Error)?)] = []
            for description in descriptions {
                do {
                    _ = try await Self.add(description, to: coordinator)
                    results.append((description, nil))
                } catch {
                    results.append((description, error))
                }
            }
            return results
        }
        let isInTask = withUnsafeCurrentTask { $0 != nil }
        guard !isInTask, !descriptions.contains(where: \.shouldAddStoreAsynchronously) else {
            Task {
                for (description, error) in await load() { completionHandler(description, error) }
            }
            return
        }
        // Waits on a semaphore, not a task's thread: the stores are added on the coordinator's
        // queue and the global executor, which this thread is neither of.
        let results = ThreadLocked<[(PersistentStoreDescription, (any Error)?)]>([])
        let done = DispatchSemaphore(value: 0)
        Task {
            let loaded = await load()
            results.withLock { $0 = loaded }
            done.signal()
        }
        done.wait()
        for (description, error) in results.withLock({ $0 }) { completionHandler(description, error) }
    }

    /// A new private-queue context on the container's coordinator. A subclass may override it
    /// to configure its contexts (a merge policy, a name), calling `super`.
    open func newBackgroundContext() -> ManagedObjectContext {
        ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: persistentStoreCoordinator)
    }

    /// Runs `body` on a new private-queue context and returns its result.
    public func performBackgroundTask<T: Sendable>(
        _ body: @Sendable (isolated ManagedObjectContext) throws -> T
    ) async throws -> T {
        try await newBackgroundContext().perform(body)
    }

    /// Where containers keep their stores: `$XDG_DATA_HOME` or `~/.local/share` on Linux, the
    /// Application Support directory on Apple platforms. A subclass overrides it to keep its
    /// stores elsewhere, as with Core Data (the container's default description asks it).
    open class func defaultDirectoryURL() -> URL {
        #if canImport(Darwin)
        return FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        #else
        if let data = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
        #endif
    }
}
