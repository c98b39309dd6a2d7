/// A running sum (and count) of numbers as predicates and dictionary fetches aggregate them,
/// whose result does not depend on the order the numbers come in.
///
/// `sum:`, `average:`, `@sum` and `@avg` are computed by the predicate evaluator on objects in
/// memory, and by SQLite (through `strata_sum`/`strata_avg`, which use this type) on rows in
/// whatever order its plan visits them. Adding doubles left to right would make the last bits of
/// the answer depend on that order, so the same fetch could answer differently on two stores.
/// Here integers add exactly while they fit in 64 bits, and doubles are summed exactly and
/// rounded once (Shewchuk's algorithm, as Python's `math.fsum`): the result is the correctly
/// rounded sum, whatever the order — more accurate than Core Data's SQL `sum()` and the same
/// on every store.
struct NumericSum {
    /// How many numbers were added (`nil`s are not numbers).
    private(set) var count = 0
    private var integer: Int64 = 0
    /// Whether every value so far was an integer (not a double, Boolean or `nil`) and their
    /// sum fits in `Int64`: the sum is then an integer, as the evaluator always answered.
    private var integral = true
    /// Non-overlapping partial sums, smallest magnitude first, whose exact total is the sum of
    /// the finite values.
    private var partials: [Double] = []
    /// The sum of the infinities and NaNs, which the partials cannot hold.
    private var special: Double?

    /// Adds `value`: an integer, another number (a double, decimal or Boolean, as a double),
    /// or `nil`, which is skipped but makes the sum a double; `false` for anything else.
    mutating func add(_ value: EvaluationValue) -> Bool {
        switch value {
        case .null:
            integral = false
            return true
        case .integer(let number):
            add(Double(number))
            if integral {
                let (sum, overflow) = integer.addingReportingOverflow(number)
                integer = sum
                integral = !overflow
            }
            return true
        default:
            guard let number = value.number else { return false }
            integral = false
            add(number)
            return true
        }
    }

    private mutating func add(_ value: Double) {
        count += 1
        guard value.isFinite else {
            special = (special ?? 0) + value
            return
        }
        var x = value
        var kept = 0
        for index in partials.indices {
            var y = partials[index]
            if abs(x) < abs(y) { swap(&x, &y) }
            let high = x + y
            let low = y - (high - x)
            if low != 0 {
                partials[kept] = low
                kept += 1
            }
            x = high
        }
        partials.removeSubrange(kept...)
        partials.append(x)
    }

    /// The sum: an integer when every value was one and the sum fits, else a double (`0` for
    /// no values at all, an integer).
    var sum: EvaluationValue {
        integral ? .integer(integer) : .double(total)
    }

    /// The mean of the numbers added; `nil` when none was.
    var average: EvaluationValue {
        count == 0 ? .null : .double(total / Double(count))
    }

    /// The exact sum of the partials, rounded once to the nearest double (ties to even).
    private var total: Double {
        if let special { return special }
        guard var index = partials.indices.last else { return 0 }
        var high = partials[index]
        var low = 0.0
        while index > 0 {
            index -= 1
            let x = high, y = partials[index]
            high = x + y
            low = y - (high - x)
            if low != 0 { break }
        }
        // What is left below `low` decides a tie between the two doubles nearest the sum.
        if index > 0, (low < 0 && partials[index - 1] < 0) || (low > 0 && partials[index - 1] > 0) {
            let y = low * 2
            let x = high + y
            if y == x - high { high = x }
        }
        return high
    }
}
