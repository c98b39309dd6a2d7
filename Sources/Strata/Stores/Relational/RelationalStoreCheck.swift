import Foundation

/// The checks of a relational store's tables against the model that wrote it, once for SQLite
/// files and PostgreSQL schemas (`strata verify`): the tables and columns Core Data's schema has
/// for the model are there, `Z_PRIMARYKEY` has a row per entity and will not hand out a
/// reference number already taken, and every to-one key and join-table row points at a stored
/// object. Each driver adds its own checks (SQLite's integrity check and external data files,
/// PostgreSQL's `Z_MODEL`) and reads in one state of the store.
package struct RelationalStoreCheck<Connection: RelationalConnection> {
    let connection: Connection
    let mapping: CoreDataTableMapping
    /// How many objects of each entity the tables hold (by the entities' own numbers).
    package private(set) var objectCounts: [String: Int] = [:]
    /// What is wrong, each in a sentence.
    package private(set) var problems: [String] = []

    package init(connection: Connection, mapping: CoreDataTableMapping) {
        self.connection = connection
        self.mapping = mapping
    }

    /// Runs the checks. `columns` is every table of the store with its columns' names; the rows
    /// are checked only when the tables are whole and `checkingRows` (a driver's own check found
    /// the file damaged: its rows are not read).
    package mutating func run(columns: [String: Set<String>], checkingRows: Bool = true) throws {
        let dialect = connection.dialect
        for table in mapping.schema.tables {
            guard let present = columns[table.name] else {
                problems.append("the table \(table.name) is missing")
                continue
            }
            let missing = (["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name)).filter { !present.contains($0) }
            if !missing.isEmpty { problems.append("the table \(table.name) lacks the column(s) \(missing.joined(separator: ", "))") }
        }
        for join in mapping.schema.joinTables {
            guard let present = columns[join.name] else {
                problems.append("the join table \(join.name) is missing")
                continue
            }
            if !Set(join.columns).isSubset(of: present) {
                problems.append("the join table \(join.name) lacks columns of \(join.columns.joined(separator: ", "))")
            }
        }
        guard problems.isEmpty, checkingRows else { return }

        let (pk, ent, counterColumn) = (dialect.column("Z_PK"), dialect.column("Z_ENT"), dialect.column("Z_MAX"))
        let keys = dialect.table("Z_PRIMARYKEY")
        for entity in mapping.schema.entities {
            let rows = try integer("SELECT count(*) FROM \(keys) WHERE \(ent) = \(dialect.placeholder(1))", [.integer(Int64(entity.number))])
            if rows != 1 { problems.append("Z_PRIMARYKEY has no row for \(entity.name) (entity \(entity.number))") }
        }
        for entity in mapping.entities.values.sorted(by: { $0.number < $1.number }) {
            let number = [SQLValue.integer(Int64(entity.number))]
            let table = dialect.table(entity.table)
            objectCounts[entity.layout.name] = Int(try integer("SELECT count(*) FROM \(table) WHERE \(ent) = \(dialect.placeholder(1))", number))
            for toOne in entity.toOnes {
                guard let destination = mapping.entities[toOne.destination] else { continue }
                let key = dialect.column(toOne.column, of: "a")
                let dangling = try integer(
                    "SELECT count(*) FROM \(table) a WHERE a.\(ent) = \(dialect.placeholder(1)) AND \(key) IS NOT NULL "
                        + "AND NOT EXISTS (SELECT 1 FROM \(dialect.table(destination.table)) d WHERE d.\(pk) = \(key))", number)
                if dangling > 0 { problems.append("\(dangling) \(entity.layout.name) object(s) point at missing objects through \(toOne.column)") }
            }
            for toMany in entity.toManys {
                guard case .joinTable(let join, let own, let other, _, _, let destination) = toMany.storage else { continue }
                let dangling = try integer(
                    "SELECT count(*) FROM \(dialect.table(join)) j WHERE NOT EXISTS (SELECT 1 FROM \(table) s WHERE s.\(pk) = \(dialect.column(own, of: "j"))) "
                        + "OR NOT EXISTS (SELECT 1 FROM \(dialect.table(destination)) d WHERE d.\(pk) = \(dialect.column(other, of: "j")))")
                if dangling > 0 { problems.append("\(dangling) row(s) of \(join) point at missing objects") }
            }
        }
        for root in mapping.schema.entities where root.superNumber == 0 {
            let highest = try integer("SELECT coalesce(max(\(pk)), 0) FROM \(dialect.table(root.table))")
            let counter = try integer(
                "SELECT coalesce(max(\(counterColumn)), 0) FROM \(keys) WHERE \(ent) = \(dialect.placeholder(1))", [.integer(Int64(root.number))])
            if highest > counter {
                problems.append("Z_PRIMARYKEY's Z_MAX for \(root.name) is \(counter), below the highest Z_PK \(highest): numbers would be handed out twice")
            }
        }
    }

    /// The first column of the first row of `sql`, 0 for none or NULL.
    private func integer(_ sql: String, _ values: [SQLValue] = []) throws -> Int64 {
        var result: Int64?
        try connection.forEachRow(sql, values) { cells in
            if result == nil { result = cells.first?.integerValue }
        }
        return result ?? 0
    }
}
