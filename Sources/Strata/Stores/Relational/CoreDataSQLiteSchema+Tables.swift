extension CoreDataSQLiteSchema {
    /// One hierarchy's table while the schema is made (§3): the columns its properties are
    /// handed, then the `Z_FOK_` columns wiring adds, all named by the table's one generator.
    /// The generator also names the join-table columns that hold this table's keys (§4), so
    /// that a clash there takes a suffix too (`Z_14USERS1`).
    struct TableBuilder {
        let name: String
        private(set) var names = Names(taken: ["Z_PK", "Z_ENT", "Z_OPT"])
        /// Attribute, foreign-key and entity-number columns, in hand-out order.
        private(set) var handedOut: [Column] = []
        /// `Z_FOK_` columns, in the order wiring added them.
        private(set) var orderColumns: [Column] = []

        /// Hands out the columns of `root`'s hierarchy: the root's attributes (by name), then its
        /// to-ones (by name, each foreign key followed by its `Z<n>_` column when the
        /// destination has subentities), then each subentity the same way, depth first, in name
        /// order.
        init(root: String, table: String, byName: [String: EntityDescription], numbers: [String: Int]) {
            name = table
            visit(root, byName, numbers)
        }

        private mutating func visit(_ entityName: String, _ byName: [String: EntityDescription], _ numbers: [String: Int]) {
            guard let entity = byName[entityName] else { return }
            for attribute in entity.attributes.sorted(by: { nameOrder($0.name, $1.name) }) where !attribute.isTransient {
                guard attribute.type != .composite else { continue }  // flattened columns: unchecked, left out
                handedOut.append(
                    Column(name: names.take("Z" + upper(attribute.name)), type: columnType(attribute.type),
                           role: .attribute(entity: entityName, name: attribute.name)))
            }
            for relationship in entity.relationships.sorted(by: { nameOrder($0.name, $1.name) })
            where !relationship.isToMany && !relationship.isTransient {
                handedOut.append(
                    Column(name: names.take("Z" + upper(relationship.name)), type: "INTEGER",
                           role: .foreignKey(entity: entityName, relationship: relationship.name)))
                if let destination = byName[relationship.destinationEntityName], !destination.subentityNames.isEmpty,
                    let number = numbers[destination.name]
                {
                    handedOut.append(
                        Column(name: names.take("Z\(number)_" + upper(relationship.name)), type: "INTEGER",
                               role: .foreignEntity(entity: entityName, relationship: relationship.name)))
                }
            }
            for child in sortedNames(entity.subentityNames) { visit(child, byName, numbers) }
        }

        /// The column of this table with `role`, if it has one.
        func column(_ role: Column.Role) -> String? {
            handedOut.first { $0.role == role }?.name ?? orderColumns.first { $0.role == role }?.name
        }

        /// Adds the `Z_FOK_` column of a to-one whose inverse is an ordered to-many, once.
        mutating func addOrderColumn(entity: String, relationship: String) {
            let role = Column.Role.foreignOrder(entity: entity, relationship: relationship)
            guard column(role) == nil else { return }
            orderColumns.append(Column(name: names.take("Z_FOK_" + upper(relationship)), type: "INTEGER", role: role))
        }

        /// Names a join-table column that holds this table's keys.
        mutating func takeJoinColumn(_ base: String) -> String {
            names.take(base)
        }

        /// The table, its columns in Core Data's order: a stable sort by class of the handed-out
        /// columns, integers first (then every `Z_FOK_` column), reals and dates, decimals,
        /// strings, UUIDs, transformables, binary data.
        func table(byName: [String: EntityDescription]) -> Table {
            func rank(_ column: Column) -> Int {
                guard case .attribute(let entity, let name) = column.role, let type = byName[entity]?.attributesByName[name]?.type else {
                    return 0
                }
                return switch type {
                case .integer16, .integer32, .integer64, .boolean: 0
                case .double, .float, .date: 2
                case .decimal: 3
                case .string, .uri, .objectID: 4
                case .uuid: 5
                case .transformable: 6
                case .binaryData: 7
                case .undefined, .composite: 8
                }
            }
            let integers = handedOut.filter { rank($0) == 0 } + orderColumns
            let rest = handedOut.filter { rank($0) > 0 }.enumerated().sorted { a, b in
                rank(a.element) != rank(b.element) ? rank(a.element) < rank(b.element) : a.offset < b.offset
            }.map(\.element)
            return Table(name: name, columns: integers + rest)
        }
    }
}
