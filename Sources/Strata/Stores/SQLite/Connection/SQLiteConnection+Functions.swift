import CSQLite
import Foundation

/// The SQL functions a Strata connection registers, so that fetches compiled to SQL decide and
/// aggregate exactly as the predicate evaluator does in memory.
extension SQLiteConnection {
    /// `strata_compare(operator, options, lhs, rhs)`: the predicate evaluator's own comparison of
    /// two strings (`BEGINSWITH`, `LIKE`, `[cd]`…), so that fetch conditions compiled to SQL
    /// decide exactly as predicates evaluated in memory (1 or 0; NULL is `nil`).
    func registerTextComparison() throws {
        let result = sqlite3_create_function_v2(
            handle, "strata_compare", 4, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, count, arguments in
                guard let arguments, count == 4, let op = FetchPredicate.Operator(rawValue: SQLiteConnection.text(arguments[0]) ?? "") else {
                    sqlite3_result_error(context, "strata_compare: (operator, options, lhs, rhs)", -1)
                    return
                }
                let options = FetchPredicate.Options(rawValue: Int(sqlite3_value_int64(arguments[1])))
                let lhs = SQLiteConnection.text(arguments[2]).map(EvaluationValue.string) ?? .null
                let rhs = SQLiteConnection.text(arguments[3]).map(EvaluationValue.string) ?? .null
                do {
                    let patterns = op == .like || op == .matches ? SQLiteConnection.patterns : PatternCache()
                    let holds = try PredicateEvaluator.compare(lhs, op, rhs, options, patterns: patterns)
                    sqlite3_result_int64(context, holds ? 1 : 0)
                } catch {
                    sqlite3_result_error(context, "\(error)", -1)
                }
            }, nil, nil, nil)
        guard result == SQLITE_OK else {
            throw SQLiteError(extendedCode: result, message: "cannot register the SQL function strata_compare")
        }
    }

    /// The text of a function argument; `nil` for NULL or a value of another class.
    private static func text(_ value: OpaquePointer?) -> String? {
        guard sqlite3_value_type(value) == SQLITE_TEXT, let bytes = sqlite3_value_text(value) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
    }

    /// Compiled LIKE and MATCHES patterns of `strata_compare`, per thread: SQL functions run on
    /// whichever thread steps the statement, and a cache is not safe to share.
    private static var patterns: PatternCache {
        let key = "strata.sqlite.patterns"
        if let cache = Thread.current.threadDictionary[key] as? PatternCache { return cache }
        let cache = PatternCache()
        Thread.current.threadDictionary[key] = cache
        return cache
    }

    /// Makes `name` an SQL function of any number of arguments that does nothing and returns
    /// NULL: for the functions Core Data's triggers call to tell Core Data what they changed.
    package func registerNoOpFunction(named name: String) throws {
        let result = sqlite3_create_function_v2(
            handle, name, -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, _, _ in sqlite3_result_null(context) }, nil, nil, nil)
        guard result == SQLITE_OK else {
            throw SQLiteError(extendedCode: result, message: "cannot register the SQL function \(name)")
        }
    }

    /// `strata_sum(value, type)` and `strata_avg(value, type)`: `sum:` and `average:` of a column
    /// of attributes of `type` (an ``AttributeType`` raw value), each value read as a fetch
    /// reads it and added by ``NumericSum``, so the answer is the evaluator's, bit for bit, in
    /// whatever order SQLite visits the rows.
    func registerNumericAggregates() throws {
        let sum = sqlite3_create_function_v2(
            handle, "strata_sum", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, nil, { SQLiteConnection.addToSum($0, $1, $2) },
            { context in SQLiteConnection.finishSum(context) { $0.sum } }, nil)
        let average = sqlite3_create_function_v2(
            handle, "strata_avg", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, nil, { SQLiteConnection.addToSum($0, $1, $2) },
            { context in SQLiteConnection.finishSum(context) { $0.average } }, nil)
        guard sum == SQLITE_OK, average == SQLITE_OK else {
            throw SQLiteError(extendedCode: sum == SQLITE_OK ? average : sum, message: "cannot register the SQL functions strata_sum and strata_avg")
        }
    }

    private static func addToSum(_ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let arguments, count == 2, let type = text(arguments[1]).flatMap(AttributeType.init(rawValue:)),
            let sum = runningSum(context, creating: true)
        else {
            sqlite3_result_error(context, "strata_sum: (value, attribute type)", -1)
            return
        }
        do {
            let decoded = try CoreDataColumnValues.decode(
                value(arguments[0]), type: type, allowsExternalStorage: false,
                externalData: { _ in throw CoreDataColumnValues.Failure(description: "external data is no number") })
            if !sum.pointee.add(EvaluationValue(decoded)) {
                sqlite3_result_error(context, "strata_sum: a \(type.rawValue) attribute is no number", -1)
            }
        } catch {
            sqlite3_result_error(context, "strata_sum: \(error)", -1)
        }
    }

    private static func finishSum(_ context: OpaquePointer?, _ result: (NumericSum) -> EvaluationValue) {
        let value: EvaluationValue
        if let sum = runningSum(context, creating: false) {
            value = result(sum.pointee)
            sum.deinitialize(count: 1)
            sum.deallocate()
        } else {
            value = result(NumericSum())  // no rows at all
        }
        switch value {
        case .integer(let number): sqlite3_result_int64(context, number)
        case .double(let number): sqlite3_result_double(context, number)
        default: sqlite3_result_null(context)
        }
    }

    /// The running sum of one aggregate evaluation, which SQLite's per-evaluation memory points
    /// at: allocated on the first row, freed by the final call (which SQLite always makes).
    private static func runningSum(_ context: OpaquePointer?, creating: Bool) -> UnsafeMutablePointer<NumericSum>? {
        let size = Int32(creating ? MemoryLayout<UnsafeMutablePointer<NumericSum>?>.size : 0)
        guard let slot = sqlite3_aggregate_context(context, size)?.assumingMemoryBound(to: UnsafeMutablePointer<NumericSum>?.self) else {
            return nil
        }
        if let sum = slot.pointee { return sum }
        guard creating else { return nil }
        let sum = UnsafeMutablePointer<NumericSum>.allocate(capacity: 1)
        sum.initialize(to: NumericSum())
        slot.pointee = sum
        return sum
    }

    /// A function argument as a stored value.
    private static func value(_ value: OpaquePointer?) -> SQLValue {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT: return text(value).map(SQLValue.text) ?? .null
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            guard count > 0, let bytes = sqlite3_value_blob(value) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }
}
