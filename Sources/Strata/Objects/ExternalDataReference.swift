import Foundation

/// Binary data a store keeps in a file of its own (Core Data's "Allows External Storage") whose
/// file could not be read when the object was: a missing or unreadable file is that one
/// attribute's problem, not the object's.
///
/// The object reads; the attribute's value is this reference. ``ManagedObject/value(forKey:)``
/// throws ``error`` for it (a ``StoreError`` with code `.missingExternalData` that names the
/// file), a typed optional property reads `nil` and logs that error, and a save that leaves the
/// attribute alone writes the reference back as it was, so that restoring the file later
/// restores the value. Setting the attribute replaces it.
public final class ExternalDataReference: Sendable, Hashable, CustomStringConvertible {
    /// The file's name as the store keeps it (a UUID for Core Data's SQLite store).
    public let name: String
    /// Where the store looked for the file.
    public let fileURL: URL
    /// Why it could not be read.
    public let reason: String

    public init(name: String, fileURL: URL, reason: String) {
        self.name = name
        self.fileURL = fileURL
        self.reason = reason
    }

    /// What reading the value throws.
    public var error: StoreError {
        StoreError(.missingExternalData, file: fileURL, "the externally stored value cannot be read: \(reason)")
    }

    /// The data, if the file can be read now; otherwise ``error``.
    public func data() throws -> Data {
        do {
            return try Data(contentsOf: fileURL)
        } catch {
            throw self.error
        }
    }

    public var description: String { "external data \(name) (unreadable: \(fileURL.path))" }

    public static func == (lhs: ExternalDataReference, rhs: ExternalDataReference) -> Bool {
        lhs.name == rhs.name && lhs.fileURL == rhs.fileURL
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
    }
}
