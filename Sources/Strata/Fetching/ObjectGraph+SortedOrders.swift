import Foundation
import OrderedCollections

/// Sorted fetches of atomic tables served from the generation's ``SortedOrders``.
extension ObjectGraph {
    /// The positions of `matches` sorted by `sortKeys`, ties in the matches' order. Each match's
    /// keys are evaluated once, into one flat array: no array per match, nothing copied as the
    /// sort moves.
    func sortedPositions(
        of matches: [ObjectRef], by sortKeys: [(ValueExpression, FetchSortDescriptor)], evaluator: PredicateEvaluator
    ) throws -> [Int] {
        let width = sortKeys.count
        var keys: [EvaluationValue] = []
        keys.reserveCapacity(matches.count * width)
        for ref in matches {
            for (expression, _) in sortKeys { keys.append(try evaluator.value(expression, on: .object(ref))) }
        }
        let descriptors = sortKeys.map(\.1)
        var positions = Array(matches.indices)
        keys.withUnsafeBufferPointer { keys in
            positions.sort { a, b in
                for index in 0..<width {
                    let order = descriptors[index].order(keys[a * width + index], keys[b * width + index])
                    if order != .orderedSame { return (order == .orderedAscending) == descriptors[index].ascending }
                }
                return a < b
            }
        }
        return positions
    }

    /// The window of a sorted fetch whose answer is the generation's atomic tables as they are:
    /// no incremental store searched, no object of the entities changed in this context (when
    /// the request includes pending changes) or in a parent, every sort key an attribute of each
    /// entity. The generation's order for that sort is made once (the same rows, the same
    /// comparisons and ties as sorting them here), and each fetch reads its window:
    /// `fetchOffset` and `fetchLimit` cost the page, not a sort of the table. With a predicate
    /// (and a limit: a page), the order is walked testing each row until the page is full —
    /// unless an index would narrow the rows first. Sets ``rowsConsidered``; `nil` otherwise,
    /// and the fetch sorts what it matched.
    func windowOfSortedOrder<Result: ManagedObject>(
        for request: FetchRequest<Result>, names: [String], sortKeys: [(ValueExpression, FetchSortDescriptor)], evaluator: PredicateEvaluator
    ) throws -> [ObjectRef]? {
        guard request.usesFastPaths, !sortKeys.isEmpty, request.predicate == nil || request.fetchLimit > 0 else { return nil }
        let layouts = names.compactMap { model.layout(for: $0) }
        guard layouts.count == names.count,
            request.sortDescriptors.allSatisfy({ descriptor in
                layouts.allSatisfy { layout in
                    if case .attribute? = layout.slots[descriptor.key] { true } else { false }
                }
            })
        else { return nil }
        let generation = self.generation  // pins first: a child's parent rows come with its generation
        let wanted = Set(names)
        guard !generation.snapshots.keys.contains(where: { request.searches(store: $0) }),
            !parentRows.keys.contains(where: { wanted.contains($0.entityName) })
        else { return nil }
        if request.includesPendingChanges {
            let changes = [inserted.values.elements, updated.values.elements, deleted.values.elements]
            if changes.contains(where: { $0.contains { wanted.contains($0.entity.name) } }) { return nil }
        }
        let searched = generation.stores.keys.filter { request.searches(store: $0) }
        if let predicate = request.predicate {
            // An index narrows a selective predicate's rows faster than walking the order.
            for store in searched {
                for (name, layout) in zip(names, layouts) {
                    if let plan = IndexPlan(predicate: predicate, layout: layout), generation.index(store: store, entity: name, slot: plan.slot) != nil {
                        return nil
                    }
                }
            }
        }
        let key = SortedOrders.Key(stores: searched, entities: names, sort: request.sortDescriptors)
        let order = try generation.sortedOrders.order(for: key) {
            // The rows the fetch would match, in the order it would match them.
            var tables: [(store: String, entity: String)] = []
            var refs: [ObjectRef] = []
            var entries: [SortedOrders.Entry] = []
            for store in searched {
                for (name, layout) in zip(names, layouts) {
                    guard let table = generation.stores[store]?[name] else { continue }
                    let space = ObjectIDSpace.make(store: store, entityName: name)
                    tables.append((store, name))
                    for (reference, row) in table.stored {
                        refs.append(ObjectRef(id: ManagedObjectID(space: space, number: reference), stored: row, layout: layout))
                        entries.append(SortedOrders.Entry(reference: reference, table: tables.count - 1))
                    }
                }
            }
            let positions = try sortedPositions(of: refs, by: sortKeys, evaluator: evaluator)
            return SortedOrders.Order(tables: tables, entries: positions.map { entries[$0] })
        }
        let tables = order.tables.map { store, name in
            let layout = model.layout(for: name)
            return (
                table: generation.stores[store]?[name], space: ObjectIDSpace.make(store: store, entityName: name), layout: layout,
                test: request.predicate.flatMap { predicate in layout.flatMap { RowTest(predicate, layout: $0) } }
            )
        }
        func ref(_ entry: SortedOrders.Entry) -> ObjectRef? {
            let source = tables[entry.table]
            guard let stored = source.table?[stored: entry.reference], let layout = source.layout else { return nil }
            return ObjectRef(id: ManagedObjectID(space: source.space, number: entry.reference), stored: stored, layout: layout)
        }
        var window: [ObjectRef] = []
        guard let predicate = request.predicate else {
            let start = min(request.fetchOffset, order.entries.count)
            let end = request.fetchLimit > 0 ? min(start + request.fetchLimit, order.entries.count) : order.entries.count
            window.reserveCapacity(end - start)
            for entry in order.entries[start..<end] {
                if let ref = ref(entry) { window.append(ref) }
            }
            rowsConsidered = window.count
            return window
        }
        var passed = 0
        rowsConsidered = 0
        for entry in order.entries {
            guard let ref = ref(entry) else { continue }
            rowsConsidered += 1
            let matches: Bool
            if let test = tables[entry.table].test {
                switch ref.stored {
                case .row(let row): matches = test.matches(row)
                case .column(let columns, let position):
                    var cursor = ColumnCursor(columns: columns)
                    cursor.position = position
                    matches = test.matches(cursor)
                }
            } else {
                matches = try evaluator.evaluate(predicate, on: .object(ref))
            }
            guard matches else { continue }
            passed += 1
            guard passed > request.fetchOffset else { continue }
            window.append(ref)
            if window.count == request.fetchLimit { break }
        }
        return window
    }
}
