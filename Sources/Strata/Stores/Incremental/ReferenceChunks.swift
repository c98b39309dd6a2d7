/// How the SQL stores read many objects by reference (a fetch's prefetching, a batch of
/// faults): `Z_PK IN (…)` ``size`` at a time. Each chunk is padded (its last reference
/// repeated) to one of a few lengths, ``lengths``, so that few prepared statements serve every
/// chunk, and a batch of 19 references binds 32 values, not 200.
package enum ReferenceChunks {
    package static let size = 200
    /// The lengths a chunk is padded to: the smallest that holds it.
    package static let lengths = [8, 32, size]

    /// `references` in chunks of up to ``size`` values each, as bound values, each padded to
    /// one of ``lengths``.
    package static func padded(_ references: [Int64]) -> [[SQLValue]] {
        guard let last = references.last else { return [] }
        return stride(from: 0, to: references.count, by: size).map { start in
            let chunk = references[start..<min(start + size, references.count)].map(SQLValue.integer)
            let length = lengths.first { $0 >= chunk.count } ?? size
            return chunk + Array(repeating: .integer(last), count: length - chunk.count)
        }
    }
}
