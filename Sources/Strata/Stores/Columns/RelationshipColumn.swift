/// One relationship slot of a table's rows, position by position.
///
/// A to-one column stores each target as its reference number and the index of its ID space
/// among the few the column has seen (mostly one: the destination entity's), 9 bytes a row
/// instead of a 24-byte `RelationshipTargets`, and no retain of the space per row. A to-many
/// column, or a to-one whose targets come from more than 255 spaces, keeps `RelationshipTargets`.
/// Like ``AttributeColumn``, it takes its form from its first value and reads back exactly
/// what was appended.
package struct RelationshipColumn: Sendable {
    /// The spaces of the targets seen, in order of first appearance.
    private var spaces: [ObjectIDSpace] = []
    /// Per position, 0 for no target, else 1 + the index of the target's space in `spaces`.
    private var spaceIndexes: [UInt8] = []
    private var numbers: [Int64] = []
    /// Every position's targets, once the column holds one that is not a to-one.
    private var boxed: [RelationshipTargets]?
    /// For a to-many a read left unread: the batch that reads every position's targets, and
    /// each position's owner (``init(unreadBy:owners:)``).
    private var unread: (batch: ToManyBatch, owners: [Int64])?
    /// Positions in the column.
    private(set) var count = 0

    package init() {}

    /// A to-many column whose targets are not read yet: position `i` holds the fault of `batch`
    /// for `owners[i]`, made when the position is read. A fetch of 100,000 objects that never
    /// uses the relationship makes no fault; an object makes its own when it takes a row of its
    /// own (``StoredColumns``), and keeps that one.
    package init(unreadBy batch: ToManyBatch, owners: [Int64]) {
        unread = (batch, owners)
        count = owners.count
    }

    subscript(position: Int) -> RelationshipTargets {
        if let boxed { return boxed[position] }
        if let unread { return unread.batch.fault(for: unread.owners[position]) }
        let space = spaceIndexes[position]
        guard space > 0 else { return .toOne(nil) }
        return .toOne(ManagedObjectID(space: spaces[Int(space) - 1], number: numbers[position]))
    }

    package mutating func append(_ targets: RelationshipTargets) {
        defer { count += 1 }
        // A column holds read targets: an unread relationship is read as it is stored. (An
        // unread column's own positions keep their faults when it turns boxed.)
        if boxed != nil || unread != nil {
            if boxed == nil { return box(appending: targets.resolved) }
            boxed?.append(targets.resolved)
            return
        }
        guard case .one(let target) = targets.read else { return box(appending: targets.resolved) }
        guard let target else {
            spaceIndexes.append(0)
            numbers.append(0)
            return
        }
        let index: Int
        if let known = spaces.firstIndex(where: { $0 === target.space }) {
            index = known
        } else if spaces.count < Int(UInt8.max) {
            spaces.append(target.space)
            index = spaces.count - 1
        } else {
            return box(appending: .toOne(target))
        }
        spaceIndexes.append(UInt8(index + 1))
        numbers.append(target.number64)
    }

    /// Positions `range` of `other`, appended.
    mutating func append(contentsOf other: RelationshipColumn, _ range: Range<Int>) {
        guard boxed == nil, other.boxed == nil, unread == nil, other.unread == nil, spaces.isEmpty || spaces.elementsEqual(other.spaces, by: ===)
        else {
            for position in range { append(other[position]) }
            return
        }
        spaces = other.spaces
        spaceIndexes.append(contentsOf: other.spaceIndexes[range])
        numbers.append(contentsOf: other.numbers[range])
        count += range.count
    }

    mutating func reserveCapacity(_ capacity: Int) {
        spaceIndexes.reserveCapacity(capacity)
        numbers.reserveCapacity(capacity)
    }

    /// Turns the column into `RelationshipTargets`, then appends `targets` (counted by the caller).
    private mutating func box(appending targets: RelationshipTargets) {
        var all = (0..<count).map { self[$0] }
        all.append(targets)
        boxed = all
        unread = nil
        spaces = []
        spaceIndexes = []
        numbers = []
    }
}
