extension FetchPredicate {
    /// Checks that every key path names a property of the entity it is evaluated on, following
    /// relationships (and SUBQUERY variables) to their destinations.
    ///
    /// - Throws: ``FetchPredicateError`` with code `.unknownKey`, naming the entity and the key.
    func check(on layout: EntityLayout, model: ManagedObjectModel, variables: [String: EntityLayout] = [:]) throws {
        switch self {
        case .constant: return
        case .not(let inner): try inner.check(on: layout, model: model, variables: variables)
        case .and(let terms), .or(let terms):
            for term in terms { try term.check(on: layout, model: model, variables: variables) }
        case .comparison(let comparison):
            _ = try comparison.lhs.check(on: layout, model: model, variables: variables)
            _ = try comparison.rhs.check(on: layout, model: model, variables: variables)
        }
    }
}

extension ValueExpression {
    /// Checks the expression's key paths; returns the entity of the objects it evaluates to,
    /// when it evaluates to objects.
    func check(on layout: EntityLayout, model: ManagedObjectModel, variables: [String: EntityLayout]) throws -> EntityLayout? {
        func recurse(_ expression: ValueExpression) throws -> EntityLayout? {
            try expression.check(on: layout, model: model, variables: variables)
        }
        switch self {
        case .evaluatedObject: return layout
        case .variable(let name): return variables[name]
        case .placeholder(let format):
            throw FetchPredicateError(.badArgument, "the argument '%\(format)' has no value: give the format string its arguments")
        case .key(let base, let key):
            guard let entity = try recurse(base) else { return nil }
            return try Self.destination(of: key, in: entity, model: model)
        case .collectionOperator(let base, let name, let path):
            var entity = try recurse(base)
            for key in path {
                guard let current = entity else { break }
                // Known before any object is read, so that every store fails alike, whatever
                // rows its query narrows the evaluation to.
                if name == "sum" || name == "avg", case .attribute(let index)? = current.slots[key],
                    !current.attributes[index].type.isNumeric, current.attributes[index].type != .boolean
                {
                    throw FetchPredicateError(
                        .evaluation, "@\(name) needs numbers, and \(current.name).\(key) is a \(current.attributes[index].type.rawValue) attribute")
                }
                entity = try Self.destination(of: key, in: current, model: model)
            }
            return nil
        case .subquery(let collection, let variable, let predicate):
            let entity = try recurse(collection)
            var inner = variables
            inner[variable] = entity
            if entity != nil {
                try predicate.check(on: layout, model: model, variables: inner)
            }
            return entity
        case .subscripted(let base, let index):
            if case .index(let position) = index { _ = try recurse(position) }
            let entity = try recurse(base)
            if case .size = index { return nil }
            return entity
        case .aggregate(let items):
            for item in items { _ = try recurse(item) }
            return nil
        case .function(_, let arguments):
            for argument in arguments { _ = try recurse(argument) }
            return nil
        case .binary(_, let lhs, let rhs):
            _ = try recurse(lhs)
            _ = try recurse(rhs)
            return nil
        case .unary(_, let operand), .cast(let operand, _):
            _ = try recurse(operand)
            return nil
        case .ternary(let predicate, let yes, let no):
            try predicate.check(on: layout, model: model, variables: variables)
            _ = try recurse(yes)
            _ = try recurse(no)
            return nil
        case .constant: return nil
        }
    }

    private static func destination(of key: String, in entity: EntityLayout, model: ManagedObjectModel) throws -> EntityLayout? {
        switch entity.slots[key] {
        case nil:
            // A computed key's value is known only when it is read: nothing after it is checked.
            if entity.computedKeys[key] != nil { return nil }
            throw FetchPredicateError(.unknownKey, "the entity \(entity.name) has no key '\(key)'")
        case .attribute:
            return nil
        case .relationship(let index):
            return model.layout(for: entity.relationships[index].destinationEntityName)
        }
    }
}

extension FetchPredicate {
    /// The predicate with every `$VARIABLE` replaced by its value (variables that a SUBQUERY
    /// binds stay).
    ///
    /// - Throws: ``FetchPredicateError`` with code `.badArgument` for a value a predicate cannot hold,
    ///   or a variable with no value.
    public func withSubstitutionVariables(_ values: [String: Any]) throws -> FetchPredicate {
        try substituting(values.mapValues { try PredicateValue(argument: $0) }, bound: [])
    }

    func substituting(_ values: [String: PredicateValue], bound: Set<String>) throws -> FetchPredicate {
        switch self {
        case .constant: return self
        case .not(let inner): return .not(try inner.substituting(values, bound: bound))
        case .and(let terms): return .and(try terms.map { try $0.substituting(values, bound: bound) })
        case .or(let terms): return .or(try terms.map { try $0.substituting(values, bound: bound) })
        case .comparison(var comparison):
            comparison.lhs = try comparison.lhs.substituting(values, bound: bound)
            comparison.rhs = try comparison.rhs.substituting(values, bound: bound)
            return .comparison(comparison)
        }
    }
}

extension ValueExpression {
    /// The expression with every `$VARIABLE` replaced by its value.
    public func withSubstitutionVariables(_ values: [String: Any]) throws -> ValueExpression {
        try substituting(values.mapValues { try PredicateValue(argument: $0) }, bound: [])
    }

    func substituting(_ values: [String: PredicateValue], bound: Set<String>) throws -> ValueExpression {
        func recurse(_ expression: ValueExpression) throws -> ValueExpression { try expression.substituting(values, bound: bound) }
        switch self {
        case .variable(let name):
            if bound.contains(name) { return self }
            guard let value = values[name] else {
                throw FetchPredicateError(.badArgument, "no value for the variable $\(name)")
            }
            return .constant(value)
        case .constant, .evaluatedObject, .placeholder: return self
        case .key(let base, let key): return .key(try recurse(base), key)
        case .collectionOperator(let base, let name, let path): return .collectionOperator(try recurse(base), name, path)
        case .aggregate(let items): return .aggregate(try items.map(recurse))
        case .function(let name, let arguments): return .function(name, try arguments.map(recurse))
        case .binary(let op, let lhs, let rhs): return .binary(op, try recurse(lhs), try recurse(rhs))
        case .unary(let op, let operand): return .unary(op, try recurse(operand))
        case .subscripted(let base, let index):
            if case .index(let position) = index { return .subscripted(try recurse(base), .index(try recurse(position))) }
            return .subscripted(try recurse(base), index)
        case .subquery(let collection, let variable, let predicate):
            return .subquery(try recurse(collection), variable, try predicate.substituting(values, bound: bound.union([variable])))
        case .ternary(let predicate, let yes, let no):
            return .ternary(try predicate.substituting(values, bound: bound), try recurse(yes), try recurse(no))
        case .cast(let operand, let type): return .cast(try recurse(operand), type)
        }
    }
}
