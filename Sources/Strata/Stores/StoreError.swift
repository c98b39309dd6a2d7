import Foundation

/// A store file that cannot be opened, read or written: not a store, from a newer format,
/// damaged, truncated, locked by another process, or not writable. Says what is wrong and
/// where (the byte offset, or the chunk); the file itself is left as it was.
///
/// Catch one kind with `catch let error as StoreError where error.code == .corruptFile`.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong with the store.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case unreadable, notAStore, newerFormat, corruptFile, truncated, storeInUse, unknownEntity
            case danglingReference, writeFailed, unsupportedModel, noModel, missingExternalData
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The file cannot be read (missing, no permission, an I/O error).
        public static let unreadable = Code(.unreadable)
        /// The file is not a store of this type (its magic number is wrong).
        public static let notAStore = Code(.notAStore)
        /// The file was written in a format version newer than this Strata reads.
        public static let newerFormat = Code(.newerFormat)
        /// The file is damaged: a checksum does not hold, or its content makes no sense.
        public static let corruptFile = Code(.corruptFile)
        /// The file ends before its last record.
        public static let truncated = Code(.truncated)
        /// Another coordinator, in this process or another, has the store open for writing.
        public static let storeInUse = Code(.storeInUse)
        /// The file holds objects of an entity the model does not have.
        public static let unknownEntity = Code(.unknownEntity)
        /// A relationship points at an object the store does not hold.
        public static let danglingReference = Code(.danglingReference)
        /// The store could not be written; the file on disk is unchanged.
        public static let writeFailed = Code(.writeFailed)
        /// The model uses something this store type cannot store (the message says what).
        public static let unsupportedModel = Code(.unsupportedModel)
        /// The store carries no model Strata can read: open it with the model that wrote it.
        public static let noModel = Code(.noModel)
        /// A value the store keeps in a file of its own (binary data with external storage)
        /// cannot be read: the file is missing or unreadable. `file` names it; the rest of the
        /// object reads (``ExternalDataReference``).
        public static let missingExternalData = Code(.missingExternalData)

        public var description: String { base.rawValue }
    }

    public var code: Code
    /// The store file.
    public var file: String
    /// The byte offset in the file where the problem is, when known.
    public var offset: Int?
    /// The chunk (counting from 0) where the problem is, when known.
    public var chunk: Int?
    public var message: String

    public init(_ code: Code, file: URL, offset: Int? = nil, chunk: Int? = nil, _ message: String) {
        self.code = code
        self.file = file.path
        self.offset = offset
        self.chunk = chunk
        self.message = message
    }

    public var description: String {
        var place = file
        if let chunk { place += ", chunk \(chunk)" }
        if let offset { place += ", byte \(offset)" }
        return "\(place): \(message)"
    }
}
