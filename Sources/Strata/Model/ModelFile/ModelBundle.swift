import Foundation
import StrataFileFormats

/// The versions of a model, oldest first: what an Xcode `.xcdatamodeld` bundle holds.
///
/// Xcode records no order between versions, so Strata takes the version named like the bundle
/// as the first, and orders the others by name with numbers compared as numbers
/// (`Model`, `Model 2`, …, `Model 10`). The current version is the one `.xccurrentversion`
/// names, or the newest when it names none (or is empty).
public struct ModelBundle: Sendable {
    /// One version of the model.
    public struct Version: Sendable, Hashable {
        /// The version's name: its `.xcdatamodel` file name without the extension.
        public let name: String
        public let model: ManagedObjectModel
    }

    /// The bundle's name, without extension.
    public let name: String
    /// Where the bundle was read from; `nil` for one made in Swift.
    public internal(set) var url: URL?
    /// Every version, oldest first.
    public let versions: [Version]
    /// The version `.xccurrentversion` names, if it names one.
    public let currentVersionName: String?

    /// A bundle of versions made in Swift, oldest first; the newest is current unless
    /// `current` names another.
    public init(name: String, versions: [(name: String, model: ManagedObjectModel)], current: String? = nil) throws {
        guard !versions.isEmpty else {
            throw ModelFileError(.noVersions, file: URL(fileURLWithPath: name), "the model bundle has no versions")
        }
        self.name = name
        let names = versions.map(\.name)
        var made: [Version] = []
        for (index, version) in versions.enumerated() {
            made.append(Version(name: version.name, model: version.model.withVersionHistory(Array(names[...index]), earlier: made)))
        }
        self.versions = made
        currentVersionName = current
    }

    /// Reads every version of an `.xcdatamodeld` bundle, or of a compiled `.momd` (what an app
    /// bundle ships; see `ModelBundle+Compiled.swift`).
    ///
    /// - Throws: ``ModelFileError`` for an unreadable bundle, one without versions, or a version
    ///   that does not read.
    public init(contentsOf url: URL) throws {
        if url.pathExtension == "momd" {
            try self.init(compiledAt: url)
            return
        }
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            throw ModelFileError(.unreadable, file: url, "cannot read the model bundle: \(error.localizedDescription)")
        }
        let bundleName = url.deletingPathExtension().lastPathComponent
        let names = Self.ordered(files.filter { $0.hasSuffix(".xcdatamodel") }.map { String($0.dropLast(".xcdatamodel".count)) }, bundleName: bundleName)
        let versions = try names.map { name in
            (name, try ManagedObjectModel(contentsOf: url.appendingPathComponent("\(name).xcdatamodel")))
        }
        let current = try Self.currentVersionName(in: url)
        if let current, !names.contains(current) {
            throw ModelFileError(
                .unknownVersion, file: url.appendingPathComponent(".xccurrentversion"),
                "the current version '\(current)' is not in the bundle")
        }
        try self.init(name: bundleName, versions: versions, current: current)
        self.url = url
    }

    /// The current version: the one `.xccurrentversion` names, else the newest.
    public var currentVersion: Version {
        currentVersionName.flatMap { name in versions.first { $0.name == name } } ?? versions[versions.count - 1]
    }

    /// The version called `name`.
    ///
    /// - Throws: ``ModelFileError`` with code `.unknownVersion`, listing the versions there are.
    public func version(named name: String) throws -> Version {
        guard let version = versions.first(where: { $0.name == name }) else {
            throw ModelFileError(
                .unknownVersion, file: url ?? URL(fileURLWithPath: self.name),
                "the bundle has no version '\(name)' (it has: \(versions.map(\.name).joined(separator: ", ")))")
        }
        return version
    }

    /// The version whose entity hashes a store's metadata records.
    ///
    /// Several versions may have the same hashes (a version that changed only what no hash
    /// covers, such as a default value or an index); the store is then at any of them. This
    /// prefers the version the store's metadata names (Strata records the version that wrote
    /// it), then the current version, then the newest of them. To plan a migration, use
    /// ``version(forStoreMetadata:migratingTo:)``, which picks the one that makes it possible.
    ///
    /// - Throws: ``PersistenceError`` with code `.storeFromNewerModel` when a later version of
    ///   this bundle wrote the store, `.incompatibleStore` when no version of it did.
    public func version(forStoreMetadata metadata: [String: MetadataValue]) throws -> Version {
        let candidates = try versions(forStoreMetadata: metadata)
        if let named = Self.writingVersionName(metadata), let version = candidates.first(where: { $0.name == named }) { return version }
        if let current = candidates.first(where: { $0.name == currentVersion.name }) { return current }
        return candidates[candidates.count - 1]
    }

    /// The version a store is at, for migrating it to `target`: among the versions whose hashes
    /// the store records, the one its metadata names, else `target` itself (a store that
    /// matches its target is never migrated, as in Core Data), else the earliest before
    /// `target` (every one of them infers the same steps).
    ///
    /// - Throws: ``PersistenceError`` as ``version(forStoreMetadata:)`` does.
    public func version(forStoreMetadata metadata: [String: MetadataValue], migratingTo target: Version) throws -> Version {
        let candidates = try versions(forStoreMetadata: metadata)
        if let named = Self.writingVersionName(metadata), let version = candidates.first(where: { $0.name == named }) { return version }
        if candidates.contains(target) { return target }
        let position = versions.firstIndex(of: target) ?? versions.count
        return candidates.first { (versions.firstIndex(of: $0) ?? 0) < position } ?? candidates[candidates.count - 1]
    }

    /// The name of the version that wrote a store, as Strata records it (the last of its history).
    private static func writingVersionName(_ metadata: [String: MetadataValue]) -> String? {
        guard case .array(let history)? = metadata[PersistentStore.modelVersionHistoryKey] else { return nil }
        return history.last?.stringValue
    }

    /// Every version whose hashes a store's metadata records, oldest first; never empty.
    private func versions(forStoreMetadata metadata: [String: MetadataValue]) throws -> [Version] {
        let matches = versions.filter { $0.model.isConfiguration(nil, compatibleWithStoreMetadata: metadata) }
        if !matches.isEmpty { return matches }
        let known = versions.map(\.name)
        if case .array(let history)? = metadata[PersistentStore.modelVersionHistoryKey] {
            let written = history.compactMap(\.stringValue)
            if written.count > known.count, Array(written.prefix(known.count)) == known {
                throw PersistenceError(
                    .storeFromNewerModel,
                    "the store was written by version '\(written.last ?? "")' of model '\(name)', newer than any this "
                        + "program knows (newest: '\(known.last ?? "")'); open it with a newer version of the program")
            }
        }
        throw PersistenceError(
            .incompatibleStore, "no version of model '\(name)' (\(known.joined(separator: ", "))) wrote the store")
    }

    private static func currentVersionName(in url: URL) throws -> String? {
        let file = url.appendingPathComponent(".xccurrentversion")
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let name: String?
        do {
            let data = try Data(contentsOf: file)
            // Xcode leaves the file empty when no version was ever made current: the newest is.
            if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return nil }
            if data.starts(with: Array("bplist00".utf8)) {
                // Foundation's binary list parser crashes on some damaged lists; Strata's own does not.
                let list = try BinaryPropertyList(data)
                let entries = try list.dictionary(at: list.top)
                name = try entries["_XCCurrentVersionName"].flatMap { index in
                    if case .string(let text) = try list.object(at: index) { return text }
                    return nil
                }
            } else {
                let plist = try PropertyListSerialization.propertyList(from: data, format: nil)
                name = (plist as? [String: Any])?["_XCCurrentVersionName"] as? String
            }
        } catch let error as ModelFileError {
            throw error
        } catch {
            throw ModelFileError(.malformedXML, file: file, "cannot read the current version: \(error)")
        }
        guard let name else { return nil }
        return name.hasSuffix(".xcdatamodel") ? String(name.dropLast(".xcdatamodel".count)) : name
    }
}
