/// The constants of the binary store format (docs/FileFormat.md).
enum BinaryStoreFormat {
    /// The first eight bytes of every file: a high byte, so a text tool never mistakes the
    /// file for text, then "STRATA" and a line feed, which a line-ending conversion would damage.
    static let magic: [UInt8] = [0x89, 0x53, 0x54, 0x52, 0x41, 0x54, 0x41, 0x0A]
    /// The newest format version this Strata reads. It writes version 1, or version 2 for a
    /// store that records persistent history (its metadata holds ``historyCountersKey``), so
    /// that a store without history stays readable by a Strata from before history.
    static let version: UInt16 = 2
    /// The version of a file with persistent history: its history records, and the end
    /// record's counts of them.
    static let historyVersion: UInt16 = 2
    /// The metadata key of a store that records persistent history: the last transaction and
    /// change numbers handed out (`{"transaction": n, "change": m}`), never handed out again.
    static let historyCountersKey = "StoreHistoryCounters"
    /// The size of the fixed header: magic, version, flags, reserved.
    static let headerSize = 16
    /// The largest record (compressed) and the largest record content (decompressed) a reader
    /// accepts; writers stay far below (``chunkSize``).
    static let maximumRecordSize = 64 << 20
    /// The uncompressed size at which a writer closes an object chunk.
    static let chunkSize = 1 << 20

    /// The kind of a record, its content's first byte.
    enum RecordKind: UInt8 {
        case metadata = 1
        case objects = 2
        case end = 3
        /// Persistent history: transactions, oldest first (version 2).
        case history = 4
    }
}

/// What the metadata record of a binary store file holds.
package struct BinaryStoreHeader: Sendable {
    /// The store's metadata (UUID, type, model hashes, reference counters, the user's keys).
    package var metadata: [String: MetadataValue]
    /// The shape of the objects that follow.
    package var schema: StoreSchema

    package init(metadata: [String: MetadataValue], schema: StoreSchema) {
        self.metadata = metadata
        self.schema = schema
    }
}
