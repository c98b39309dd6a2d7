import Foundation

/// The objects a migration could not map, collected so that its error names every one (up to a
/// limit, counting the rest) instead of the first.
struct FailureList {
    let limit: Int
    private(set) var lines: [String] = []
    private(set) var count = 0
    /// Whether any object lacks a required value (else every failure is a value that does not fit).
    private(set) var hasMissingValues = false

    init(limit: Int) {
        self.limit = limit
    }

    mutating func append(missing line: String) {
        hasMissingValues = true
        append(line)
    }

    mutating func append(lost line: String) {
        append(line)
    }

    private mutating func append(_ line: String) {
        count += 1
        if lines.count < limit { lines.append(line) }
    }

    /// The migration's error, when anything failed: what failed, that nothing was written, and
    /// how to go on.
    func error(stage: String) -> MigrationError? {
        guard count > 0 else { return nil }
        // In URI order, numbers compared as numbers (p2 before p10), whatever order chunks held them in.
        var problems = lines.sorted { $0.compare($1, options: .numeric) == .orderedAscending }
        if count > lines.count { problems.append("… and \(count - lines.count) more") }
        let advice = hasMissingValues
            ? "; give the step a custom mapping that sets them, or run `strata migrate --fill-defaults` to give each "
                + "missing attribute value its default or its type's zero value"
            : "; give the step a custom mapping that converts them"
        return MigrationError(
            hasMissingValues ? .missingValues : .dataLoss,
            "\(stage): \(count) problem\(count == 1 ? "" : "s") in the store's data, so the migration wrote nothing and the "
                + "store is unchanged\(advice)",
            problems: problems)
    }
}
