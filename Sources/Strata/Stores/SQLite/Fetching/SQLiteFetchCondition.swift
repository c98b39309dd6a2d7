import Foundation

/// A fetch predicate compiled, for one entity of a Core Data SQLite store, into a SQL condition
/// on its table (as `t`), with bound parameters: no value is ever spliced into the SQL.
///
/// What translates: comparisons of an attribute, or of an attribute reached through to-one
/// relationships, with a constant (`==`, `!=`, `<`, `<=`, `>`, `>=`, `IN`, `BETWEEN`; string
/// operators and `[cd]` through `strata_compare`, the predicate evaluator's own comparison
/// registered as a SQL function); a to-one relationship against an object or `nil`; `AND`, `OR`,
/// `NOT`, `TRUEPREDICATE`, `FALSEPREDICATE`. Every translated term is two-valued (a NULL column
/// gives true or false, never SQL's unknown), so `NOT` and `OR` keep their meaning.
///
/// What does not translate (to-many key paths, `ANY`/`ALL`, `SUBQUERY`, aggregates, functions,
/// decimals, variables) is left to the fetching context, which evaluates the whole predicate on
/// the rows the condition returns: the condition is then wider than the predicate (``isExact``
/// is false), never narrower, so nothing is silently dropped. A predicate with nothing to
/// translate gives no condition at all.
///
/// One known difference from evaluating in memory, where Core Data has it too: a number Core Data
/// left with a fraction in an integer column (its lightweight migration copies values as they
/// are) compares in SQL as stored, while reading the object truncates it.
struct SQLiteFetchCondition {
    var sql: String
    var bindings: [SQLiteValue]
    /// Whether the condition selects exactly what the predicate does.
    var isExact: Bool

    /// The condition for `predicate` on `entity`'s rows; `nil` when nothing of it translates.
    static func compile(
        _ predicate: FetchPredicate, for entity: CoreDataSQLiteMapping.Entity, in mapping: CoreDataSQLiteMapping, store: String
    ) -> SQLiteFetchCondition? {
        var compiler = Compiler(mapping: mapping, store: store)
        return compiler.condition(predicate, entity: entity, alias: "t")
    }

    static func constant(_ value: Bool) -> SQLiteFetchCondition {
        SQLiteFetchCondition(sql: value ? "1" : "0", bindings: [], isExact: true)
    }
}

extension SQLiteFetchCondition {
    private struct Compiler {
        let mapping: CoreDataSQLiteMapping
        let store: String
        /// Aliases for the tables of nested subqueries.
        var aliases = 0

        mutating func condition(_ predicate: FetchPredicate, entity: CoreDataSQLiteMapping.Entity, alias: String) -> SQLiteFetchCondition? {
            switch predicate {
            case .constant(let value):
                return .constant(value)
            case .and(let terms):
                let parts = terms.map { condition($0, entity: entity, alias: alias) }
                let translated = parts.compactMap { $0 }
                // Terms left out only widen a conjunction.
                guard !translated.isEmpty else { return nil }
                return joined(translated, by: "AND", exact: translated.count == parts.count && translated.allSatisfy(\.isExact))
            case .or(let terms):
                var translated: [SQLiteFetchCondition] = []
                for term in terms {
                    // A disjunct that cannot be bounded leaves the whole disjunction unbounded.
                    guard let part = condition(term, entity: entity, alias: alias) else { return nil }
                    translated.append(part)
                }
                guard !translated.isEmpty else { return .constant(false) }
                return joined(translated, by: "OR", exact: translated.allSatisfy(\.isExact))
            case .not(let inner):
                // Only an exact condition can be negated: a wider one would negate to a narrower.
                guard let part = condition(inner, entity: entity, alias: alias), part.isExact else { return nil }
                return SQLiteFetchCondition(sql: "NOT (\(part.sql))", bindings: part.bindings, isExact: true)
            case .comparison(let comparison):
                return self.comparison(comparison, entity: entity, alias: alias)
            }
        }

        private func joined(_ parts: [SQLiteFetchCondition], by connective: String, exact: Bool) -> SQLiteFetchCondition {
            SQLiteFetchCondition(
                sql: parts.map { "(\($0.sql))" }.joined(separator: " \(connective) "), bindings: parts.flatMap(\.bindings), isExact: exact)
        }

        private mutating func comparison(
            _ comparison: FetchPredicate.Comparison, entity: CoreDataSQLiteMapping.Entity, alias: String
        ) -> SQLiteFetchCondition? {
            guard comparison.modifier == .direct else { return nil }
            var (lhs, op, rhs) = (comparison.lhs, comparison.op, comparison.rhs)
            if case .constant = lhs, case .key = rhs, let flipped = Self.flipped(op) {
                (lhs, rhs, op) = (rhs, lhs, flipped)
            }
            guard let constant = Self.constant(rhs), let path = Self.keyPath(lhs), !path.isEmpty else { return nil }
            let (mapping, store, options) = (self.mapping, self.store, comparison.options)
            return keyPath(path[...], entity: entity, alias: alias) { column, slot in
                switch slot {
                case .attribute(let attribute): Self.attribute(column, attribute, op, constant, options)
                case .toOne(let toOne): Self.toOne(column, toOne, op, constant, mapping: mapping, store: store)
                }
            }
        }

        private enum Target {
            case attribute(AttributeDescription)
            case toOne(CoreDataSQLiteMapping.ToOneColumn)
        }

        /// The condition on the property at the end of `path`, through each to-one before it.
        private mutating func keyPath(
            _ path: ArraySlice<String>, entity: CoreDataSQLiteMapping.Entity, alias: String,
            _ atom: (String, Target) -> (SQLiteFetchCondition, nullMatches: Bool)?
        ) -> SQLiteFetchCondition? {
            guard let key = path.first else { return nil }
            let rest = path.dropFirst()
            if rest.isEmpty {
                if let column = entity.attributes.first(where: { $0.attribute.name == key }) {
                    return atom("\(alias).\(column.column)", .attribute(column.attribute))?.0
                }
                if let toOne = entity.toOnes.first(where: { entity.layout.relationships[$0.slot].name == key }) {
                    return atom("\(alias).\(toOne.column)", .toOne(toOne))?.0
                }
                return nil
            }
            guard let toOne = entity.toOnes.first(where: { entity.layout.relationships[$0.slot].name == key }),
                let destination = mapping.entities[toOne.destination]
            else { return nil }
            aliases += 1
            let inner = "x\(aliases)"
            var nullMatches = false
            guard let condition = keyPath(rest, entity: destination, alias: inner, { column, target in
                guard let result = atom(column, target) else { return nil }
                nullMatches = result.nullMatches
                return result
            }) else { return nil }
            // A missing target gives the key path no value: the comparison then holds as it does on nil.
            let numbers = destination.number...(destination.number + max(0, destination.layout.hierarchyNames.count - 1))
            var sql = "\(alias).\(toOne.column) IN (SELECT \(inner).Z_PK FROM \(destination.table) \(inner) "
                + "WHERE \(inner).Z_ENT BETWEEN \(numbers.lowerBound) AND \(numbers.upperBound) AND (\(condition.sql)))"
            if nullMatches { sql = "(\(alias).\(toOne.column) IS NULL OR \(sql))" }
            return SQLiteFetchCondition(sql: sql, bindings: condition.bindings, isExact: condition.isExact)
        }

        /// A to-one relationship against an object (its ID) or `nil`.
        private static func toOne(
            _ column: String, _ toOne: CoreDataSQLiteMapping.ToOneColumn, _ op: FetchPredicate.Operator, _ constant: PredicateValue,
            mapping: CoreDataSQLiteMapping, store: String
        ) -> (SQLiteFetchCondition, nullMatches: Bool)? {
            switch (op, constant) {
            case (.equal, .null): return (SQLiteFetchCondition(sql: "\(column) IS NULL", bindings: [], isExact: true), true)
            case (.notEqual, .null): return (SQLiteFetchCondition(sql: "\(column) IS NOT NULL", bindings: [], isExact: true), false)
            case (.equal, .objectID(let id)):
                // An object of another store, or of no entity the relationship reaches, is none of these.
                guard id.persistentStoreIdentifier == store, let reference = id.referenceNumber,
                    let number = mapping.entities[id.entityName]?.number, toOne.destinationNumbers.contains(number)
                else { return (.constant(false), false) }
                // Equal keys name the same row; that its entity is the ID's is checked in memory.
                return (SQLiteFetchCondition(sql: "(\(column) IS NOT NULL AND \(column) = ?)", bindings: [.integer(reference)], isExact: false), false)
            default:
                return nil
            }
        }

        /// An attribute's column against a constant, as the evaluator compares the values the
        /// column decodes to; `nil` when the pair does not translate exactly.
        private static func attribute(
            _ column: String, _ attribute: AttributeDescription, _ op: FetchPredicate.Operator, _ constant: PredicateValue,
            _ options: FetchPredicate.Options
        ) -> (SQLiteFetchCondition, nullMatches: Bool)? {
            if case .null = constant {
                switch op {
                case .equal: return (SQLiteFetchCondition(sql: "\(column) IS NULL", bindings: [], isExact: true), true)
                case .notEqual: return (SQLiteFetchCondition(sql: "\(column) IS NOT NULL", bindings: [], isExact: true), false)
                default: return nil
                }
            }
            let type = attribute.type
            if type == .string, case .string(let text) = constant {
                if options.isEmpty, let symbol = symbol(op) {
                    return compared(column, symbol, op, [.text(text)])
                }
                // The evaluator's own comparison: `BEGINSWITH`, `LIKE`, `MATCHES`, `[cd]`…
                guard [.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .beginsWith, .endsWith,
                       .contains, .like, .matches].contains(op)
                else { return nil }
                let sql = "strata_compare(?, \(options.rawValue), \(column), ?)"
                let nullMatches = op == .notEqual
                return (SQLiteFetchCondition(sql: nullMatches ? "(\(column) IS NULL OR \(sql))" : "(\(column) IS NOT NULL AND \(sql))",
                                             bindings: [.text(op.rawValue), .text(text)], isExact: true), nullMatches)
            }
            if op == .in, case .collection(let elements) = constant {
                let values = elements.map { bound($0, for: type) }
                guard values.allSatisfy({ $0 != nil }) else { return nil }
                let present = values.compactMap { $0 }.filter { $0 != .null }
                let wantsNil = values.contains { $0 == .null }
                var sql = present.isEmpty ? "0" : "(\(column) IS NOT NULL AND \(column) IN (\(present.map { _ in "?" }.joined(separator: ", "))))"
                if wantsNil { sql = "(\(column) IS NULL OR \(sql))" }
                return (SQLiteFetchCondition(sql: sql, bindings: present, isExact: true), wantsNil)
            }
            if op == .between, case .collection(let bounds) = constant, bounds.count == 2,
                let lower = bound(bounds[0], for: type), let upper = bound(bounds[1], for: type), lower != .null, upper != .null,
                type != .boolean
            {
                return (SQLiteFetchCondition(
                    sql: "(\(column) IS NOT NULL AND \(column) >= ? AND \(column) <= ?)", bindings: [lower, upper], isExact: true), false)
            }
            guard let symbol = symbol(op), let value = bound(constant, for: type), value != .null else { return nil }
            if type == .boolean {
                // Stored as Core Data stores it, any number: true unless 0.
                guard op == .equal || op == .notEqual, case .integer(let number) = value else { return nil }
                let truth = "(\(column) <> 0)"
                return compared(truth, symbol, op, [.integer(number == 0 ? 0 : 1)], nullColumn: column, exactOnlyFor: number == 0 || number == 1)
            }
            if type == .uuid, op != .equal, op != .notEqual { return nil }
            return compared(column, symbol, op, [value])
        }

        /// `column <symbol> ?`, two-valued: a NULL column matches `!=` only.
        private static func compared(
            _ expression: String, _ symbol: String, _ op: FetchPredicate.Operator, _ bindings: [SQLiteValue], nullColumn: String? = nil,
            exactOnlyFor exact: Bool = true
        ) -> (SQLiteFetchCondition, nullMatches: Bool) {
            let column = nullColumn ?? expression
            let sql = op == .notEqual ? "(\(column) IS NULL OR \(expression) \(symbol) ?)" : "(\(column) IS NOT NULL AND \(expression) \(symbol) ?)"
            return (SQLiteFetchCondition(sql: sql, bindings: bindings, isExact: exact), op == .notEqual)
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
        private static func bound(_ constant: PredicateValue, for type: AttributeType) -> SQLiteValue? {
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

        /// `a.b.c` as its keys; `nil` for any other expression.
        private static func keyPath(_ expression: ValueExpression) -> [String]? {
            switch expression {
            case .key(.evaluatedObject, let key): key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            case .key(let base, let key): keyPath(base).map { $0 + key.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
            default: nil
            }
        }
    }
}
