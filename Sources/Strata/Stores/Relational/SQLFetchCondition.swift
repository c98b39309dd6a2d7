import Foundation

/// A fetch predicate compiled, for one entity of a Core Data SQLite store (or of the PostgreSQL
/// store, which keeps the same tables: see ``SQLDialect``), into a SQL condition on its table
/// (as `t`), as a ``SQLFragment``: every value is a bound parameter, never spliced into the SQL.
///
/// What translates: comparisons of an attribute, or of an attribute reached through relationships
/// (to-ones by their keys, to-manys as `EXISTS` subqueries, with `ANY`, `ALL` or `NONE`), with a
/// constant (`==`, `!=`, `<`, `<=`, `>`, `>=`, `IN`, `BETWEEN`; string operators and `[cd]`
/// through `strata_compare`, the predicate evaluator's own comparison registered as a SQL
/// function); a to-one relationship against an object or `nil`; a to-many's `@count` (of all its
/// targets, or of a `SUBQUERY`'s) against a number; `@sum`, `@avg`, `@min` and `@max` of a
/// to-many's attribute against a constant; `AND`, `OR`, `NOT`, `TRUEPREDICATE`,
/// `FALSEPREDICATE`. Every translated term is two-valued (a NULL column
/// gives true or false, never SQL's unknown), so `NOT` and `OR` keep their meaning.
///
/// `SUBQUERY(…).@count` translates when its predicate does, exactly. What does not translate
/// (functions, decimals, variables, aggregates of longer key paths, `CONTAINS` on a to-many key path, which
/// tests membership) is left to the fetching context, which evaluates the whole predicate on
/// the rows the condition returns: the condition is then wider than the predicate (``isExact``
/// is false), never narrower, so nothing is silently dropped. A predicate with nothing to
/// translate gives no condition at all.
///
/// One known difference from evaluating in memory, where Core Data has it too: a number Core Data
/// left with a fraction in an integer column (its lightweight migration copies values as they
/// are) compares in SQL as stored, while reading the object truncates it.
package struct SQLFetchCondition {
    /// The condition's SQL and parameters.
    package var fragment: SQLFragment
    /// Whether the condition selects exactly what the predicate does.
    package var isExact: Bool
    /// For a condition that is a constant (`TRUEPREDICATE`, `FALSEPREDICATE`, or none given):
    /// its value, so that a reader can skip the query or the clause.
    package var constantValue: Bool?

    init(_ fragment: SQLFragment, isExact: Bool, constantValue: Bool? = nil) {
        self.fragment = fragment
        self.isExact = isExact
        self.constantValue = constantValue
    }

    /// The condition for `predicate` on `entity`'s rows; `nil` when nothing of it translates.
    package static func compile(
        _ predicate: FetchPredicate, for entity: CoreDataTableMapping.Entity, in mapping: CoreDataTableMapping, store: String,
        dialect: SQLDialect = .sqlite
    ) -> SQLFetchCondition? {
        var compiler = Compiler(mapping: mapping, store: store, dialect: dialect)
        return compiler.condition(predicate, entity: entity, alias: "t")
    }

    /// The condition that selects exactly what `predicate` does on `entity`'s rows (every row
    /// for none); `nil` when it does not translate exactly, and the context must judge the rows.
    package static func exact(
        _ predicate: FetchPredicate?, for entity: CoreDataTableMapping.Entity, in mapping: CoreDataTableMapping, store: String, dialect: SQLDialect
    ) -> SQLFetchCondition? {
        guard let predicate else { return constant(true, dialect) }
        guard let condition = compile(predicate, for: entity, in: mapping, store: store, dialect: dialect), condition.isExact else { return nil }
        return condition
    }

    static func constant(_ value: Bool, _ dialect: SQLDialect = .sqlite) -> SQLFetchCondition {
        SQLFetchCondition("\(value ? dialect.alwaysTrue : dialect.alwaysFalse)", isExact: true, constantValue: value)
    }
}

extension SQLFetchCondition {
    private struct Compiler {
        let mapping: CoreDataTableMapping
        let store: String
        let dialect: SQLDialect
        /// Aliases for the tables of nested subqueries.
        var aliases = 0
        /// Inside a `SUBQUERY`, its variable: what key paths start from there (a key path from
        /// `SELF` then names the outer object, which the subquery's SQL cannot see).
        var element: String?

        mutating func condition(_ predicate: FetchPredicate, entity: CoreDataTableMapping.Entity, alias: String) -> SQLFetchCondition? {
            switch predicate {
            case .constant(let value):
                return .constant(value, dialect)
            case .and(let terms):
                let parts = terms.map { condition($0, entity: entity, alias: alias) }
                let translated = parts.compactMap { $0 }
                // Terms left out only widen a conjunction.
                guard !translated.isEmpty else { return nil }
                return joined(translated, by: "AND", exact: translated.count == parts.count && translated.allSatisfy(\.isExact))
            case .or(let terms):
                var translated: [SQLFetchCondition] = []
                for term in terms {
                    // A disjunct that cannot be bounded leaves the whole disjunction unbounded.
                    guard let part = condition(term, entity: entity, alias: alias) else { return nil }
                    translated.append(part)
                }
                guard !translated.isEmpty else { return .constant(false, dialect) }
                return joined(translated, by: "OR", exact: translated.allSatisfy(\.isExact))
            case .not(let inner):
                // Only an exact condition can be negated: a wider one would negate to a narrower.
                guard let part = condition(inner, entity: entity, alias: alias), part.isExact else { return nil }
                return SQLFetchCondition("NOT (\(part.fragment))", isExact: true)
            case .comparison(let comparison):
                return self.comparison(comparison, entity: entity, alias: alias)
            }
        }

        private func joined(_ parts: [SQLFetchCondition], by connective: String, exact: Bool) -> SQLFetchCondition {
            SQLFetchCondition(.joined(parts.map { "(\($0.fragment))" }, separator: " \(connective) "), isExact: exact)
        }

        private mutating func comparison(
            _ comparison: FetchPredicate.Comparison, entity: CoreDataTableMapping.Entity, alias: String
        ) -> SQLFetchCondition? {
            var (lhs, op, rhs) = (comparison.lhs, comparison.op, comparison.rhs)
            if case .constant = lhs, case .key = rhs, let flipped = Self.flipped(op) {
                (lhs, rhs, op) = (rhs, lhs, flipped)
            }
            guard let constant = Self.constant(rhs) else { return nil }
            if comparison.modifier == .direct, case .collectionOperator(let base, "count", let rest) = lhs, rest.isEmpty {
                if case .subquery(let collection, let variable, let inner) = base, let path = keyPath(collection) {
                    return count(of: path, entity: entity, alias: alias, op, constant, matching: (variable, inner))
                }
                if let path = keyPath(base) { return count(of: path, entity: entity, alias: alias, op, constant) }
                return nil
            }
            if comparison.modifier == .direct, case .collectionOperator(let base, let function, let rest) = lhs {
                guard let path = keyPath(base), rest.count == 1 else { return nil }
                return aggregate(function, of: path, key: rest[0], entity: entity, alias: alias, op, constant, comparison.options)
            }
            guard let path = keyPath(lhs), !path.isEmpty else { return nil }
            // On a to-many key path CONTAINS tests membership, not a substring: left to the context.
            if comparison.modifier == .direct, op == .contains, crossesToMany(path[...], entity: entity) { return nil }
            let (mapping, store, options, dialect) = (self.mapping, self.store, comparison.options, self.dialect)
            var crossed = false
            let condition = keyPath(path[...], entity: entity, alias: alias, quantifier: comparison.modifier, crossed: &crossed) { column, slot in
                switch slot {
                case .attribute(let attribute): Self.attribute(column, attribute.type, op, constant, options, dialect)
                case .toOne(let toOne): Self.toOne(column, toOne, op, constant, mapping: mapping, store: store, dialect)
                }
            }
            // ANY, ALL and NONE mean something only over a to-many relationship.
            return crossed || comparison.modifier == .direct ? condition : nil
        }

        /// `relationship.@count`, or `SUBQUERY(relationship, $x, predicate).@count`, against a
        /// number: a count of the targets (that match the predicate, which must translate
        /// exactly), in a subquery.
        private mutating func count(
            of path: [String], entity: CoreDataTableMapping.Entity, alias: String, _ op: FetchPredicate.Operator, _ constant: PredicateValue,
            matching filter: (variable: String, predicate: FetchPredicate)? = nil
        ) -> SQLFetchCondition? {
            let bound: SQLValue
            switch constant {
            case .integer(let value): bound = .integer(value)
            case .double(let value) where !value.isNaN: bound = .real(value)
            default: return nil
            }
            guard let symbol = Self.symbol(op), let (from, inner, destination) = targets(of: path, entity: entity, alias: alias) else { return nil }
            guard let (variable, predicate) = filter else {
                return SQLFetchCondition("(SELECT count(*) \(from)) \(symbol) \(bound: bound)", isExact: true)
            }
            let outer = element
            element = variable
            defer { element = outer }
            guard let matching = condition(predicate, entity: destination, alias: inner), matching.isExact else { return nil }
            return SQLFetchCondition("(SELECT count(*) \(from) AND (\(matching.fragment))) \(symbol) \(bound: bound)", isExact: true)
        }

        /// `relationship.@sum.key` (or `@avg`, `@min`, `@max`) against a constant: the aggregate
        /// of the targets' attribute in a subquery, computed as the evaluator computes it
        /// (`strata_sum`/`strata_avg`; SQL's `min`/`max` for types it orders as the evaluator
        /// does), then compared as an attribute of the result's type would be. An empty
        /// relationship gives `0` for `@sum` and `nil` for the others, in both.
        private mutating func aggregate(
            _ function: String, of path: [String], key: String, entity: CoreDataTableMapping.Entity, alias: String,
            _ op: FetchPredicate.Operator, _ constant: PredicateValue, _ options: FetchPredicate.Options
        ) -> SQLFetchCondition? {
            guard let (from, inner, destination) = targets(of: path, entity: entity, alias: alias),
                let position = destination.attributes.firstIndex(where: { $0.attribute.name == key })
            else { return nil }
            let type = destination.attributeTypes[position]
            let column = dialect.column(destination.attributes[position].column, of: inner)
            let (expression, resultType): (String, AttributeType)
            switch function {
            case "sum", "avg":
                guard dialect.hasEvaluatorFunctions, RelationalJoinedColumns.summable.contains(type) else { return nil }
                (expression, resultType) = ("strata_\(function)(\(column), '\(type.rawValue)')", .double)
            case "min", "max":
                // Booleans are stored as any number, which SQL would order as numbers.
                guard RelationalJoinedColumns.sortable.contains(type), type != .boolean, type != .string || dialect.textOrdering.isEmpty else { return nil }
                (expression, resultType) = ("\(function)(\(column))", type)
            default:
                return nil
            }
            let subquery = "(SELECT \(expression) \(from))"
            return Self.attribute(subquery, resultType, op, constant, options, dialect)?.0
        }

        /// `FROM … WHERE …` of the targets of a key path of to-one relationships ending in a
        /// to-many (`author.books`), their alias and entity. A nil to-one, or one that names no
        /// row, leaves no targets: the evaluator's empty collection.
        private mutating func targets(
            of path: [String], entity: CoreDataTableMapping.Entity, alias: String
        ) -> (from: String, alias: String, entity: CoreDataTableMapping.Entity)? {
            guard let last = path.last else { return nil }
            var owner = entity
            var key = dialect.column("Z_PK", of: alias)
            for (depth, name) in path.dropLast().enumerated() {
                guard let toOne = owner.toOnes.first(where: { owner.layout.relationships[$0.slot].name == name }),
                    let destination = mapping.entities[toOne.destination]
                else { return nil }
                aliases += 1
                let (hop, numbers) = ("x\(aliases)", toOne.destinationNumbers)
                let foreignKey: String
                if depth == 0 {
                    foreignKey = dialect.column(toOne.column, of: alias)
                } else {
                    aliases += 1
                    let step = "x\(aliases)"
                    foreignKey = "(SELECT \(dialect.column(toOne.column, of: step)) FROM \(dialect.table(owner.table)) \(step) "
                        + "WHERE \(dialect.column("Z_PK", of: step)) = \(key))"
                }
                key = "(SELECT \(dialect.column("Z_PK", of: hop)) FROM \(dialect.table(destination.table)) \(hop) "
                    + "WHERE \(dialect.column("Z_PK", of: hop)) = \(foreignKey) "
                    + "AND \(dialect.column("Z_ENT", of: hop)) BETWEEN \(numbers.lowerBound) AND \(numbers.upperBound))"
                owner = destination
            }
            guard let toMany = owner.toManys.first(where: { owner.layout.relationships[$0.slot].name == last }),
                let destination = mapping.entities[toMany.destination]
            else { return nil }
            let (from, inner) = targets(of: toMany, destination: destination, ownerKey: key)
            return (from, inner, destination)
        }

        /// `FROM … WHERE …` of the targets of a to-many relationship of the object whose key
        /// `ownerKey` gives, and their alias.
        private mutating func targets(
            of toMany: CoreDataTableMapping.ToManySlot, destination: CoreDataTableMapping.Entity, ownerKey: String
        ) -> (String, String) {
            aliases += 1
            let inner = "x\(aliases)"
            let numbers = destination.number...(destination.number + max(0, destination.layout.hierarchyNames.count - 1))
            let entities = "\(dialect.column("Z_ENT", of: inner)) BETWEEN \(numbers.lowerBound) AND \(numbers.upperBound)"
            switch toMany.storage {
            case .inverseForeignKey(let table, let column, _):
                return ("FROM \(dialect.table(table)) \(inner) WHERE \(dialect.column(column, of: inner)) = \(ownerKey) AND \(entities)", inner)
            case .joinTable(let table, let own, let other, _, _, let destinationTable):
                let join = "j\(aliases)"
                return ("FROM \(dialect.table(table)) \(join) JOIN \(dialect.table(destinationTable)) \(inner) "
                    + "ON \(dialect.column("Z_PK", of: inner)) = \(dialect.column(other, of: join)) "
                    + "WHERE \(dialect.column(own, of: join)) = \(ownerKey) AND \(entities)", inner)
            }
        }

        /// Whether `path` goes through a to-many relationship (after any number of to-ones).
        private func crossesToMany(_ path: ArraySlice<String>, entity: CoreDataTableMapping.Entity) -> Bool {
            guard let key = path.first else { return false }
            if entity.toManys.contains(where: { entity.layout.relationships[$0.slot].name == key }) { return path.count > 1 }
            guard let toOne = entity.toOnes.first(where: { entity.layout.relationships[$0.slot].name == key }),
                let destination = mapping.entities[toOne.destination]
            else { return false }
            return crossesToMany(path.dropFirst(), entity: destination)
        }

        private enum Target {
            case attribute(AttributeDescription)
            case toOne(CoreDataTableMapping.ToOneColumn)
        }

        /// The condition on the property at the end of `path`, through each relationship before
        /// it: a to-one by its key, a to-many by an `EXISTS` over its targets, quantified as
        /// `quantifier` says (the evaluator's collections hold when any element does, unless
        /// `ALL` or `NONE`). Only one to-many may be crossed under `ALL` or `NONE`, and only
        /// with an exact condition on its targets.
        private mutating func keyPath(
            _ path: ArraySlice<String>, entity: CoreDataTableMapping.Entity, alias: String, quantifier: FetchPredicate.Modifier,
            crossed: inout Bool, _ atom: (String, Target) -> (SQLFetchCondition, nullMatches: Bool)?
        ) -> SQLFetchCondition? {
            guard let key = path.first else { return nil }
            let rest = path.dropFirst()
            if !rest.isEmpty, let toMany = entity.toManys.first(where: { entity.layout.relationships[$0.slot].name == key }),
                let destination = mapping.entities[toMany.destination]
            {
                if crossed && quantifier != .any && quantifier != .direct { return nil }
                crossed = true
                let (from, inner) = targets(of: toMany, destination: destination, ownerKey: dialect.column("Z_PK", of: alias))
                guard let condition = keyPath(rest, entity: destination, alias: inner, quantifier: .any, crossed: &crossed, atom) else { return nil }
                switch quantifier {
                case .direct, .any:
                    return SQLFetchCondition("EXISTS (SELECT 1 \(from) AND (\(condition.fragment)))", isExact: condition.isExact)
                case .none:
                    guard condition.isExact else { return nil }
                    return SQLFetchCondition("NOT EXISTS (SELECT 1 \(from) AND (\(condition.fragment)))", isExact: true)
                case .all:
                    guard condition.isExact else { return nil }
                    return SQLFetchCondition("NOT EXISTS (SELECT 1 \(from) AND NOT (\(condition.fragment)))", isExact: true)
                }
            }
            if rest.isEmpty {
                if let column = entity.attributes.first(where: { $0.attribute.name == key }) {
                    return atom(dialect.column(column.column, of: alias), .attribute(column.attribute))?.0
                }
                if let toOne = entity.toOnes.first(where: { entity.layout.relationships[$0.slot].name == key }) {
                    return atom(dialect.column(toOne.column, of: alias), .toOne(toOne))?.0
                }
                return nil
            }
            // Under ALL or NONE, a to-one before the to-many could be nil, which the evaluator
            // quantifies differently: left to the context.
            guard quantifier == .direct || quantifier == .any,
                let toOne = entity.toOnes.first(where: { entity.layout.relationships[$0.slot].name == key }),
                let destination = mapping.entities[toOne.destination]
            else { return nil }
            aliases += 1
            let inner = "x\(aliases)"
            var nullMatches = false
            guard let condition = keyPath(rest, entity: destination, alias: inner, quantifier: quantifier, crossed: &crossed, { column, target in
                guard let result = atom(column, target) else { return nil }
                nullMatches = result.nullMatches
                return result
            }) else { return nil }
            // A missing target gives the key path no value: the comparison then holds as it does on nil.
            let numbers = destination.number...(destination.number + max(0, destination.layout.hierarchyNames.count - 1))
            let foreignKey = dialect.column(toOne.column, of: alias)
            var sql: SQLFragment = "\(foreignKey) IN (SELECT \(dialect.column("Z_PK", of: inner)) FROM \(dialect.table(destination.table)) \(inner) "
                + "WHERE \(dialect.column("Z_ENT", of: inner)) BETWEEN \(numbers.lowerBound) AND \(numbers.upperBound) AND (\(condition.fragment)))"
            if nullMatches { sql = "(\(foreignKey) IS NULL OR \(sql))" }
            return SQLFetchCondition(sql, isExact: condition.isExact)
        }

        /// A to-one relationship against an object (its ID) or `nil`.
        private static func toOne(
            _ column: String, _ toOne: CoreDataTableMapping.ToOneColumn, _ op: FetchPredicate.Operator, _ constant: PredicateValue,
            mapping: CoreDataTableMapping, store: String, _ dialect: SQLDialect
        ) -> (SQLFetchCondition, nullMatches: Bool)? {
            switch (op, constant) {
            case (.equal, .null): return (SQLFetchCondition("\(column) IS NULL", isExact: true), true)
            case (.notEqual, .null): return (SQLFetchCondition("\(column) IS NOT NULL", isExact: true), false)
            case (.equal, .objectID(let id)):
                // An object of another store, or of no entity the relationship reaches, is none of these.
                guard id.persistentStoreIdentifier == store, let reference = id.referenceNumber,
                    let number = mapping.entities[id.entityName]?.number, toOne.destinationNumbers.contains(number)
                else { return (.constant(false, dialect), false) }
                // Equal keys name the same row; that its entity is the ID's is checked in memory.
                return (SQLFetchCondition("(\(column) IS NOT NULL AND \(column) = \(bound: .integer(reference)))", isExact: false), false)
            default:
                return nil
            }
        }

        /// An attribute's column against a constant, as the evaluator compares the values the
        /// column decodes to; `nil` when the pair does not translate exactly.
        private static func attribute(
            _ column: String, _ type: AttributeType, _ op: FetchPredicate.Operator, _ constant: PredicateValue,
            _ options: FetchPredicate.Options, _ dialect: SQLDialect
        ) -> (SQLFetchCondition, nullMatches: Bool)? {
            if case .null = constant {
                switch op {
                case .equal: return (SQLFetchCondition("\(column) IS NULL", isExact: true), true)
                case .notEqual: return (SQLFetchCondition("\(column) IS NOT NULL", isExact: true), false)
                default: return nil
                }
            }
            if type == .string, case .string(let text) = constant {
                if options.isEmpty, let symbol = symbol(op) {
                    // Equal in every deterministic collation exactly when equal in byte order: in
                    // byte order, so that the text indexes (kept in it) serve lookups too.
                    return compared(column + dialect.textOrdering, symbol, op, .text(text), nullColumn: column)
                }
                guard dialect.hasEvaluatorFunctions else { return nil }
                // The evaluator's own comparison: `BEGINSWITH`, `LIKE`, `MATCHES`, `[cd]`…
                guard [.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .beginsWith, .endsWith,
                       .contains, .like, .matches].contains(op)
                else { return nil }
                // A pattern that does not compile is the context's to report, as the typed error
                // every store gives (in SQL it would be the database's error).
                if op == .matches, (try? PatternCache().matches("", regex: text, options: options)) == nil { return nil }
                if op == .like, (try? PatternCache().matches("", like: text, options: options)) == nil { return nil }
                let sql: SQLFragment = "strata_compare(\(bound: .text(op.rawValue)), \(options.rawValue), \(column), \(bound: .text(text)))"
                let nullMatches = op == .notEqual
                return (SQLFetchCondition(nullMatches ? "(\(column) IS NULL OR \(sql))" : "(\(column) IS NOT NULL AND \(sql))", isExact: true), nullMatches)
            }
            if op == .in, case .collection(let elements) = constant {
                let values = elements.map { bound($0, for: type) }
                guard values.allSatisfy({ $0 != nil }) else { return nil }
                let present = values.compactMap { $0 }.filter { $0 != .null }
                let wantsNil = values.contains { $0 == .null }
                let list = SQLFragment.joined(present.map { "\(bound: $0)" }, separator: ", ")
                let compared = type == .string ? column + dialect.textOrdering : column  // as `==` above
                var sql: SQLFragment = present.isEmpty ? "\(dialect.alwaysFalse)" : "(\(column) IS NOT NULL AND \(compared) IN (\(list)))"
                if wantsNil { sql = "(\(column) IS NULL OR \(sql))" }
                return (SQLFetchCondition(sql, isExact: true), wantsNil)
            }
            if op == .between, case .collection(let bounds) = constant, bounds.count == 2,
                let lower = bound(bounds[0], for: type), let upper = bound(bounds[1], for: type), lower != .null, upper != .null,
                type != .boolean
            {
                let ordered = type == .string ? column + dialect.textOrdering : column
                return (SQLFetchCondition("(\(column) IS NOT NULL AND \(ordered) >= \(bound: lower) AND \(ordered) <= \(bound: upper))", isExact: true), false)
            }
            guard let symbol = symbol(op), let value = bound(constant, for: type), value != .null else { return nil }
            if type == .boolean {
                // Stored as Core Data stores it, any number: true unless 0.
                guard op == .equal || op == .notEqual, case .integer(let number) = value else { return nil }
                let truth = dialect.comparisonsAreNumbers ? "(\(column) <> 0)" : "(CASE WHEN \(column) <> 0 THEN 1 ELSE 0 END)"
                return compared(truth, symbol, op, .integer(number == 0 ? 0 : 1), nullColumn: column, exactOnlyFor: number == 0 || number == 1)
            }
            if type == .uuid, op != .equal, op != .notEqual { return nil }
            if type == .string { return compared(column + dialect.textOrdering, symbol, op, value, nullColumn: column) }
            return compared(column, symbol, op, value)
        }

        /// `column <symbol> value`, two-valued: a NULL column matches `!=` only.
        private static func compared(
            _ expression: String, _ symbol: String, _ op: FetchPredicate.Operator, _ value: SQLValue, nullColumn: String? = nil,
            exactOnlyFor exact: Bool = true
        ) -> (SQLFetchCondition, nullMatches: Bool) {
            let column = nullColumn ?? expression
            let sql: SQLFragment = op == .notEqual
                ? "(\(column) IS NULL OR \(expression) \(symbol) \(bound: value))" : "(\(column) IS NOT NULL AND \(expression) \(symbol) \(bound: value))"
            return (SQLFetchCondition(sql, isExact: exact), op == .notEqual)
        }

        private static func symbol(_ op: FetchPredicate.Operator) -> String? {
            switch op {
            case .equal: "="
            case .notEqual: "<>"
            case .lessThan: "<"
            case .lessThanOrEqual: "<="
            case .greaterThan: ">"
            case .greaterThanOrEqual: ">="
            default: nil
            }
        }

        private static func flipped(_ op: FetchPredicate.Operator) -> FetchPredicate.Operator? {
            switch op {
            case .equal, .notEqual: op
            case .lessThan: .greaterThan
            case .lessThanOrEqual: .greaterThanOrEqual
            case .greaterThan: .lessThan
            case .greaterThanOrEqual: .lessThanOrEqual
            default: nil
            }
        }

        /// The stored form of a constant compared with an attribute of `type`, when SQL compares
        /// it as the evaluator compares the decoded value; `.null` for `nil`.
        private static func bound(_ constant: PredicateValue, for type: AttributeType) -> SQLValue? {
            switch (type, constant) {
            case (_, .null): return .null
            case (.integer16, .integer(let v)), (.integer32, .integer(let v)), (.integer64, .integer(let v)),
                (.double, .integer(let v)), (.float, .integer(let v)), (.boolean, .integer(let v)):
                return .integer(v)
            case (.integer16, .bool(let v)), (.integer32, .bool(let v)), (.integer64, .bool(let v)), (.boolean, .bool(let v)),
                (.double, .bool(let v)), (.float, .bool(let v)):
                return .integer(v ? 1 : 0)
            case (.integer16, .double(let v)), (.integer32, .double(let v)), (.integer64, .double(let v)),
                (.double, .double(let v)), (.float, .double(let v)):
                return v.isNaN ? nil : .real(v)
            case (.date, .date(let v)):
                return .real(v.timeIntervalSinceReferenceDate)
            case (.string, .string(let v)):
                return .text(v)
            case (.uuid, .uuid(let v)):
                return .blob(withUnsafeBytes(of: v.uuid) { Data($0) })
            default:
                return nil
            }
        }

        /// A constant, or a list of constants (`{1, 2}`) as one.
        private static func constant(_ expression: ValueExpression) -> PredicateValue? {
            switch expression {
            case .constant(let value): return value
            case .aggregate(let items):
                var values: [PredicateValue] = []
                for item in items {
                    guard case .constant(let value) = item else { return nil }
                    values.append(value)
                }
                return .collection(values)
            default: return nil
            }
        }

        /// `a.b.c` (from `SELF`, or inside a `SUBQUERY` from its variable) as its keys; `nil` for
        /// any other expression.
        private func keyPath(_ expression: ValueExpression) -> [String]? {
            func keys(_ key: String) -> [String] { key.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
            switch expression {
            case .key(.evaluatedObject, let key): return element == nil ? keys(key) : nil
            case .key(.variable(let name), let key): return name == element ? keys(key) : nil
            case .key(let base, let key): return keyPath(base).map { $0 + keys(key) }
            default: return nil
            }
        }
    }
}
