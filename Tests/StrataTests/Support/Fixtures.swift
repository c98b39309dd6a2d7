import Foundation
import StrataTestSupport

/// Where the tests find files: the package's own test models, and the real Xcode models of
/// other projects that sit beside the project (`../shared/fixtures/xcdatamodels`), absent in a
/// user's clone.
enum Fixtures {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let models = packageRoot.appendingPathComponent("Tests/Models")

    static let sharedXcodeModels = packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/fixtures/xcdatamodels")

    static var hasSharedXcodeModels: Bool {
        FileManager.default.fileExists(atPath: sharedXcodeModels.path)
    }

    /// Real SQLite stores that Core Data wrote (`../shared/fixtures/sqlite`); copy before opening.
    static let sharedSQLiteStores = packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/fixtures/sqlite")

    /// Whether the shared stores are here and `python3` can read them (its sqlite3 and plistlib).
    static var canReadSharedSQLiteStores: Bool {
        FileManager.default.fileExists(atPath: sharedSQLiteStores.path) && CoreDataStoreReader.isAvailable
    }

    /// Compiled models and mapping models Xcode wrote (`../shared/fixtures/compiled`).
    static let sharedCompiledModels = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/compiled")

    static var hasSharedCompiledModels: Bool {
        FileManager.default.fileExists(atPath: sharedCompiledModels.path)
    }

    /// Whether `python3` is on the PATH: the independent reader of keyed archives, compiled
    /// models and Core Data's stores (plistlib, sqlite3 and zlib are in its standard library).
    /// Looked up rather than run: a trait's condition cannot wait for a process.
    static let hasPython3 = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
        FileManager.default.isExecutableFile(atPath: "\($0)/python3")
    }

    /// Every `.xcdatamodeld` bundle below the shared fixtures folder.
    static func sharedBundles() -> [URL] {
        guard let walker = FileManager.default.enumerator(at: sharedXcodeModels, includingPropertiesForKeys: nil) else {
            return []
        }
        var bundles: [URL] = []
        for case let url as URL in walker where url.pathExtension == "xcdatamodeld" {
            bundles.append(url)
            walker.skipDescendants()
        }
        return bundles.sorted { $0.path < $1.path }
    }

    /// A new temporary directory, removed by the caller's `defer`.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
