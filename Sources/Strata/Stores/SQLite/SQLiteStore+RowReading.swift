import Foundation

/// The SQLite store's abilities beyond the public contract, as the coordinator asks for them:
/// rows read straight from statements (``RowReadingStore``; the work is in
/// SQLiteStore+Reading.swift) and persistent history in Core Data's tables
/// (``HistoryKeepingStore``; SQLiteStore+History.swift).
extension SQLiteStore {
    package func row(forObject id: ManagedObjectID, layout: EntityLayout, in snapshot: any IncrementalStoreSnapshot) throws -> Row? {
        try readRow(for: id, layout: layout, in: snapshot)
    }

    /// The objects' rows, `Z_PK IN (…)` a ``ReferenceChunks`` chunk at a time.
    package func rows(
        ofEntity layout: EntityLayout, references: [Int64], in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(reference: Int64, row: Row)] {
        try readRows(of: layout, references: references, in: snapshot)
    }

    /// The entity's rows that may match `predicate`, narrowed in SQL as far as it translates.
    package func rows(
        ofEntity layout: EntityLayout, matching predicate: FetchPredicate?, in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(reference: Int64, row: Row)] {
        try readRows(of: layout, matching: predicate, in: snapshot)
    }

    /// Sorted, windowed and counted in SQL when the predicate translates exactly.
    package func rows(
        ofEntity layout: EntityLayout, matching predicate: FetchPredicate?, sortedBy sort: [(key: String, ascending: Bool)], offset: Int,
        limit: Int, in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(reference: Int64, row: Row)]? {
        try readRows(of: layout, matching: predicate, sortedBy: sort, offset: offset, limit: limit, in: snapshot)
    }

    /// What the sorted read above would give, across a hierarchy's table, as references only
    /// (two columns in SQL).
    package func references(
        ofEntities layouts: [EntityLayout], matching predicate: FetchPredicate?, sortedBy sort: [(key: String, ascending: Bool)],
        offset: Int, limit: Int, in snapshot: any IncrementalStoreSnapshot
    ) throws -> [(entity: String, reference: Int64)]? {
        try readReferences(of: layouts, matching: predicate, sortedBy: sort, offset: offset, limit: limit, in: snapshot)
    }

    package func count(ofEntities layouts: [EntityLayout], matching predicate: FetchPredicate?, in snapshot: any IncrementalStoreSnapshot) throws -> Int? {
        try countRows(of: layouts, matching: predicate, in: snapshot)
    }

    /// Grouped in SQL (``RelationalGrouping``) when the request translates exactly.
    package func groups(
        ofEntity layout: EntityLayout, matching predicate: FetchPredicate?, groupBy: [String], properties: [ExpressionDescription],
        sortedBy sort: [(key: String, ascending: Bool)], in snapshot: any IncrementalStoreSnapshot
    ) throws -> [StoreGroup]? {
        guard let snapshot = snapshot as? SQLiteReadSnapshot, let entity = mapping.entities[layout.name],
            let grouping = RelationalGrouping(
                entity: entity, mapping: mapping, store: identifier, dialect: .sqlite, predicate: predicate, groupBy: groupBy,
                properties: properties, sort: sort)
        else { return nil }
        let (spaces, file) = (idSpaces, fileURL)
        return try sqlite {
            try snapshot.read { connection in
                var groups: [StoreGroup] = []
                try SQLiteRelationalConnection(connection).forEachRow(grouping.sql, grouping.bindings) { row in
                    groups.append(
                        try grouping.group(from: row, spaces: spaces, externalData: externalData) { name, problem in
                            StoreError(.corruptFile, file: file, "\(layout.name).\(name): \(problem)")
                        })
                }
                return groups
            }
        }
    }

    package func recordedHistory(
        after position: PersistentHistoryChangeRequest.Position, authors: PersistentHistoryChangeRequest.AuthorFilter
    ) throws -> [PersistentHistoryTransaction] {
        try readHistory(after: position, authors: authors)
    }

    package func recordedHistoryBounds() throws -> (last: Int64, firstKept: Int64) {
        try readHistoryBounds()
    }
}
