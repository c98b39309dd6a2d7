/// How the SQL stores read many objects by reference (a fetch's prefetching): `Z_PK IN (…)`
/// ``size`` at a time, every chunk with exactly that many values (the last repeats its last
/// reference), so that one prepared statement serves every chunk.
package enum ReferenceChunks {
    package static let size = 200

    /// `references` in chunks of ``size`` values each, as bound values.
    package static func padded(_ references: [Int64]) -> [[SQLValue]] {
        guard let last = references.last else { return [] }
        return stride(from: 0, to: references.count, by: size).map { start in
            let chunk = references[start..<min(start + size, references.count)].map(SQLValue.integer)
            return chunk + Array(repeating: .integer(last), count: size - chunk.count)
        }
    }
}
