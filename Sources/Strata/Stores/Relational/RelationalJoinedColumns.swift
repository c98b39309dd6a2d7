/// Key paths of an entity (its table as `t`) as SQL columns, reaching through to-one
/// relationships by `LEFT JOIN`s: what sorting and grouping in SQL select and order by.
///
/// A missing target (a `nil` relationship, or a key naming no row of the destination's
/// entities) joins as NULL, which is the value the predicate evaluator gives such a key path.
/// Each relationship prefix is joined once, however many key paths go through it.
struct RelationalJoinedColumns {
    enum Target {
        /// An attribute, at this position of its entity's ``CoreDataTableMapping/Entity/attributes``.
        case attribute(CoreDataTableMapping.Entity, position: Int)
        /// A to-one relationship: its key column, and the `Z_ENT` of the row it names.
        case toOne(key: String, entityColumn: String)
    }

    private let mapping: CoreDataTableMapping
    private let root: CoreDataTableMapping.Entity
    private let dialect: SQLDialect
    /// `LEFT JOIN …` clauses, in the order key paths needed them.
    private(set) var joins: [String] = []
    private var aliases: [String: String] = [:]

    init(mapping: CoreDataTableMapping, root: CoreDataTableMapping.Entity, dialect: SQLDialect) {
        self.mapping = mapping
        self.root = root
        self.dialect = dialect
    }

    /// The column `keyPath` (keys separated by dots) ends in, and what it holds; `nil` when a
    /// key before the last is not a to-one relationship or the last is neither an attribute
    /// nor a to-one.
    mutating func column(for keyPath: String) -> (sql: String, target: Target)? {
        let keys = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var entity = root
        var alias = "t"
        for (depth, key) in keys.enumerated() {
            let isLast = depth == keys.count - 1
            if isLast, let position = entity.attributes.firstIndex(where: { $0.attribute.name == key }) {
                return (dialect.column(entity.attributes[position].column, of: alias), .attribute(entity, position: position))
            }
            guard let toOne = entity.toOnes.first(where: { entity.layout.relationships[$0.slot].name == key }),
                let destination = mapping.entities[toOne.destination]
            else { return nil }
            let prefix = keys[...depth].joined(separator: ".")
            let joined = aliases[prefix] ?? {
                let joined = "k\(aliases.count)"
                let numbers = toOne.destinationNumbers
                joins.append(
                    "LEFT JOIN \(dialect.table(toOne.destinationTable)) \(joined) ON \(dialect.column("Z_PK", of: joined)) = \(dialect.column(toOne.column, of: alias)) "
                        + "AND \(dialect.column("Z_ENT", of: joined)) BETWEEN \(numbers.lowerBound) AND \(numbers.upperBound)")
                aliases[prefix] = joined
                return joined
            }()
            if isLast {
                let key = dialect.column("Z_PK", of: joined)
                return (key, .toOne(key: key, entityColumn: dialect.column("Z_ENT", of: joined)))
            }
            entity = destination
            alias = joined
        }
        return nil
    }

    /// `ORDER BY` terms for sort keys, when each sorts in SQL as the context sorts it: an
    /// attribute of a type whose SQL order is the evaluator's (numbers, Booleans, dates, strings
    /// by scalars, UUIDs by their bytes as by their text; NULL first ascending, last descending,
    /// in both); `nil` otherwise.
    mutating func ordering(_ sort: [(key: String, ascending: Bool)]) -> [String]? {
        var terms: [String] = []
        for (key, ascending) in sort {
            guard let (column, target) = column(for: key), case .attribute(let entity, let position) = target,
                Self.sortable.contains(entity.attributeTypes[position])
            else { return nil }
            terms.append(dialect.orderTerm(column, isText: entity.attributeTypes[position] == .string, ascending: ascending))
        }
        return terms
    }

    static let sortable = SQLDialect.sortableTypes
    /// Types `strata_sum` and `strata_avg` add: numbers and Booleans.
    static let summable: Set<AttributeType> = [.integer16, .integer32, .integer64, .boolean, .double, .float, .decimal]
}
