import Foundation
import StrataFileFormats

extension ModelBundle {
    /// Reads a compiled model bundle (`.momd`, what Xcode's `momc` makes of an `.xcdatamodeld`
    /// and an app ships): one `.mom` per version, and `VersionInfo.plist` naming the current
    /// version and each version's entity hashes. Versions are ordered as in an `.xcdatamodeld`.
    /// An `.omo` file (momc's undocumented "optimized" form of the current version) is passed
    /// over: the `.mom` beside it holds the same model.
    ///
    /// - Throws: ``ModelFileError``: `.versionInfoMismatch` when `VersionInfo.plist` gives a
    ///   version other hashes than its `.mom` has, naming the version and the entities;
    ///   `.unknownVersion` when it names a current version the bundle lacks; `.noVersions`;
    ///   what reading a `.mom` throws.
    init(compiledAt url: URL) throws {
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            throw ModelFileError(.unreadable, file: url, "cannot read the compiled model bundle: \(error.localizedDescription)")
        }
        let bundleName = url.deletingPathExtension().lastPathComponent
        let names = Self.ordered(files.filter { $0.hasSuffix(".mom") }.map { String($0.dropLast(".mom".count)) }, bundleName: bundleName)
        guard !names.isEmpty else { throw ModelFileError(.noVersions, file: url, "the compiled model bundle has no .mom versions") }
        let info = try CompiledVersionInfo(bundle: url)
        let versions = try names.map { name in
            let model = try ManagedObjectModel(compiledAt: url.appendingPathComponent("\(name).mom"))
            if let expected = info.hashes[name] { try Self.check(model, against: expected, version: name, bundle: url) }
            return (name, model)
        }
        if let current = info.currentVersionName, !names.contains(current) {
            throw ModelFileError(
                .unknownVersion, file: url.appendingPathComponent("VersionInfo.plist"), "the current version '\(current)' is not in the bundle")
        }
        try self.init(name: bundleName, versions: versions, current: info.currentVersionName)
        self.url = url
    }

    /// Version names in Strata's order: the one named like the bundle first, then by name with
    /// numbers compared as numbers.
    static func ordered(_ names: [String], bundleName: String) -> [String] {
        names.sorted { a, b in
            if a == bundleName || b == bundleName { return a == bundleName && b != bundleName }
            return a.compare(b, options: [.numeric]) == .orderedAscending
        }
    }

    private static func check(_ model: ManagedObjectModel, against expected: [String: Data], version: String, bundle: URL) throws {
        let hashes = model.entityVersionHashesByName
        var differences: [String] = []
        for name in Set(hashes.keys).union(expected.keys).sorted() {
            switch (hashes[name], expected[name]) {
            case (nil, _): differences.append("\(name) is in VersionInfo.plist, not in the .mom")
            case (_, nil): differences.append("\(name) is in the .mom, not in VersionInfo.plist")
            case (let a?, let b?) where a != b: differences.append("\(name)'s hash differs")
            default: continue
            }
        }
        guard differences.isEmpty else {
            throw ModelFileError(
                .versionInfoMismatch, file: bundle.appendingPathComponent("VersionInfo.plist"),
                "version '\(version)' does not match its \(version).mom: \(differences.joined(separator: "; "))")
        }
    }
}

extension ManagedObjectModel {
    /// Reads a compiled model (`.mom`): a binary `NSKeyedArchiver` archive of
    /// `NSManagedObjectModel`, the same archive a store's `Z_MODELCACHE` holds (inflated).
    ///
    /// - Throws: ``ModelFileError`` naming the file: `.unreadable`, or `.malformedModelCache`
    ///   for bytes that are not such an archive (cut short, damaged, another kind of file).
    public init(compiledAt url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ModelFileError(.unreadable, file: url, "cannot read the compiled model: \(error.localizedDescription)")
        }
        do {
            self = try CoreDataModelCache.model(fromArchive: data)
        } catch let error as ModelFileError {
            throw ModelFileError(error.code, file: url, "the compiled model cannot be read: \(error.message)", modelError: error.modelError)
        }
    }
}

/// `VersionInfo.plist` of a compiled model bundle: `NSManagedObjectModel_CurrentVersionName`
/// and, per version, `NSManagedObjectModel_VersionHashes` (entity name → 32-byte hash).
struct CompiledVersionInfo {
    var currentVersionName: String?
    var hashes: [String: [String: Data]] = [:]

    init(bundle: URL) throws {
        let file = bundle.appendingPathComponent("VersionInfo.plist")
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        do {
            let data = try Data(contentsOf: file)
            // Strata's bounded reader for binary lists (Foundation's crashes on some damaged ones).
            guard data.starts(with: Array("bplist00".utf8)) else {
                let plist = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] ?? [:]
                currentVersionName = plist["NSManagedObjectModel_CurrentVersionName"] as? String
                hashes = (plist["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]]) ?? [:]
                return
            }
            let list = try BinaryPropertyList(data)
            let top = try list.dictionary(at: list.top)
            if let index = top["NSManagedObjectModel_CurrentVersionName"], case .string(let name) = try list.object(at: index) {
                currentVersionName = name
            }
            if let index = top["NSManagedObjectModel_VersionHashes"] {
                for (version, entitiesIndex) in try list.dictionary(at: index) {
                    var entities: [String: Data] = [:]
                    for (entity, hashIndex) in try list.dictionary(at: entitiesIndex) {
                        if case .data(let hash) = try list.object(at: hashIndex) { entities[entity] = hash }
                    }
                    hashes[version] = entities
                }
            }
        } catch let failure as BinaryPropertyList.Failure {
            throw ModelFileError(.malformedModelCache, file: file, "VersionInfo.plist cannot be read: \(failure.description)")
        } catch {
            throw ModelFileError(.unreadable, file: file, "VersionInfo.plist cannot be read: \(error)")
        }
    }
}
