import Foundation

extension PredicateEvaluator {
    /// The value of an expression for `object`.
    func value(_ expression: ValueExpression, on object: EvaluationValue) throws -> EvaluationValue {
        switch expression {
        case .constant(let constant): return EvaluationValue(constant)
        case .evaluatedObject: return object
        case .key(let base, let key): return try value(ofKey: key, in: try value(base, on: object))
        case .collectionOperator(let base, let name, let path):
            var elements = try value(base, on: object).elements
            for key in path { elements = try elements.map { try value(ofKey: key, in: $0) } }
            return try collectionOperator(name, elements)
        case .placeholder(let format):
            throw FetchPredicateError(.badArgument, "the argument '%\(format)' has no value: give the format string its arguments")
        case .variable(let name):
            guard let bound = variables[name] else {
                throw FetchPredicateError(.badArgument, "the variable $\(name) has no value: substitute it first")
            }
            return bound
        case .aggregate(let items): return .collection(try items.map { try value($0, on: object) })
        case .function(let name, let arguments):
            if let customFunction, name.hasPrefix("FUNCTION:"), case .variable(let target)? = arguments.first,
                let answer = try customFunction(target, String(name.dropFirst(9)), Array(arguments.dropFirst()), { try value($0, on: object) })
            {
                return answer
            }
            return try function(name, try arguments.map { try value($0, on: object) })
        case .binary(let op, let lhs, let rhs):
            return try arithmetic(op, try value(lhs, on: object), try value(rhs, on: object))
        case .unary(let op, let operand):
            let operand = try value(operand, on: object)
            if op == "~", case .integer(let v) = operand { return .integer(~v) }
            return try arithmetic("-", .integer(0), operand)
        case .subscripted(let base, let index):
            let elements = try value(base, on: object).elements
            switch index {
            case .first: return elements.first ?? .null
            case .last: return elements.last ?? .null
            case .size: return .integer(Int64(elements.count))
            case .index(let position):
                guard case .integer(let i) = try value(position, on: object) else {
                    throw FetchPredicateError(.evaluation, "a subscript must be an integer")
                }
                return elements.indices.contains(Int(i)) ? elements[Int(i)] : .null
            }
        case .subquery(let collection, let variable, let predicate):
            var inner = self
            var matching: [EvaluationValue] = []
            for element in try value(collection, on: object).elements {
                inner.variables[variable] = element
                if try inner.evaluate(predicate, on: object) { matching.append(element) }
            }
            return .collection(matching)
        case .ternary(let predicate, let yes, let no):
            return try value(try evaluate(predicate, on: object) ? yes : no, on: object)
        case .cast(let operand, let type):
            return try cast(try value(operand, on: object), to: type)
        }
    }

    /// A computed key's value for an object, as a predicate's value.
    private func computedValue(_ key: ComputedKey, of ref: ObjectRef) throws -> EvaluationValue {
        guard let object = source.managedObject(for: ref) else { return .null }
        let value = try key.value(of: object)
        do {
            return EvaluationValue(try PredicateValue(argument: value))
        } catch {
            throw FetchPredicateError(.evaluation, "the computed key '\(key.name)' of \(ref.layout.name) gives a value a predicate cannot compare: \(error)")
        }
    }

    /// A key of a value: a property of an object, `length` of a string, or the key of every
    /// element of a collection (flattened, so that key paths across to-many relationships give
    /// one collection).
    func value(ofKey key: String, in base: EvaluationValue) throws -> EvaluationValue {
        switch base {
        case .object(let ref):
            guard let slot = ref.layout.slots[key] else {
                if let computed = ref.layout.computedKeys[key] { return try computedValue(computed, of: ref) }
                throw FetchPredicateError(.unknownKey, "the entity \(ref.layout.name) has no key '\(key)'")
            }
            switch slot {
            case .attribute(let index):
                return EvaluationValue(ref.stored.attribute(index))
            case .relationship(let index):
                switch ref.stored.relationship(index).read {
                case .one(let id): return id.flatMap { source.object(for: $0) }.map(EvaluationValue.object) ?? .null
                case .many(let ids): return .collection(ids.compactMap { source.object(for: $0) }.map(EvaluationValue.object))
                }
            }
        case .objectID(let id):
            guard let ref = source.object(for: id) else { return .null }
            return try value(ofKey: key, in: .object(ref))
        case .collection(let elements):
            var values: [EvaluationValue] = []
            for element in elements {
                let value = try value(ofKey: key, in: element)
                if case .collection(let nested) = value { values += nested } else { values.append(value) }
            }
            return .collection(values)
        case .dictionary(let values):
            return values[key] ?? .null
        case .string(let text) where key == "length":
            return .integer(Int64(text.count))
        case .null:
            return .null
        default:
            throw FetchPredicateError(.evaluation, "a value of this kind has no key '\(key)'")
        }
    }

    private func collectionOperator(_ name: String, _ elements: [EvaluationValue]) throws -> EvaluationValue {
        switch name {
        case "count": return .integer(Int64(elements.count))
        case "sum": return try function("sum:", [.collection(elements)])
        case "avg": return try function("average:", [.collection(elements)])
        case "min": return try function("min:", [.collection(elements)])
        case "max": return try function("max:", [.collection(elements)])
        case "distinctUnionOfObjects", "distinctUnionOfArrays", "distinctUnionOfSets":
            let flat = name == "distinctUnionOfObjects" ? elements : elements.flatMap(\.elements)
            var distinct: [EvaluationValue] = []
            for element in flat where !distinct.contains(where: { Self.equal($0, element) }) { distinct.append(element) }
            return .collection(distinct)
        case "unionOfObjects": return .collection(elements)
        case "unionOfArrays", "unionOfSets": return .collection(elements.flatMap(\.elements))
        default: throw FetchPredicateError(.unsupported, "the collection operator @\(name) is not supported")
        }
    }

    private func numbers(_ value: EvaluationValue, for name: String) throws -> [Double] {
        try value.elements.filter { if case .null = $0 { false } else { true } }.map {
            guard let number = $0.number else { throw FetchPredicateError(.evaluation, "\(name) needs numbers") }
            return number
        }
    }

    /// A number result: an integer when every input was one, else a double.
    private func numeric(_ result: Double, integral: Bool) -> EvaluationValue {
        integral && result == result.rounded() && abs(result) < 9e18 ? .integer(Int64(result)) : .double(result)
    }

    func function(_ name: String, _ arguments: [EvaluationValue]) throws -> EvaluationValue {
        func argument(_ index: Int) throws -> EvaluationValue {
            guard index < arguments.count else { throw FetchPredicateError(.evaluation, "\(name) takes more arguments") }
            return arguments[index]
        }
        func number(_ index: Int) throws -> Double {
            guard let value = try argument(index).number else { throw FetchPredicateError(.evaluation, "\(name) needs a number") }
            return value
        }
        let list = arguments.count == 1 ? arguments[0] : .collection(arguments)
        switch name {
        case "sum:", "average:":
            var sum = NumericSum()
            for element in list.elements where !sum.add(element) {
                throw FetchPredicateError(.evaluation, "\(name) needs numbers")
            }
            return name == "sum:" ? sum.sum : sum.average
        case "count:": return .integer(Int64(list.elements.count))
        case "min:", "max:":
            let elements = list.elements.filter { if case .null = $0 { false } else { true } }
            guard var best = elements.first else { return .null }
            for element in elements.dropFirst() {
                let order = Self.order(element, best)
                if (name == "min:" && order == .orderedAscending) || (name == "max:" && order == .orderedDescending) { best = element }
            }
            return best
        case "median:":
            let values = try numbers(list, for: name).sorted()
            guard !values.isEmpty else { return .null }
            return .double(values.count % 2 == 1 ? values[values.count / 2] : (values[values.count / 2 - 1] + values[values.count / 2]) / 2)
        case "stddev:":
            let values = try numbers(list, for: name)
            guard !values.isEmpty else { return .null }
            let mean = values.reduce(0, +) / Double(values.count)
            return .double((values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot())
        case "add:to:": return try arithmetic("+", try argument(0), try argument(1))
        case "from:subtract:": return try arithmetic("-", try argument(0), try argument(1))
        case "multiply:by:": return try arithmetic("*", try argument(0), try argument(1))
        case "divide:by:": return try arithmetic("/", try argument(0), try argument(1))
        case "modulus:by:": return try arithmetic("%", try argument(0), try argument(1))
        case "raise:toPower:": return try arithmetic("**", try argument(0), try argument(1))
        case "bitwiseAnd:with:": return try arithmetic("&", try argument(0), try argument(1))
        case "bitwiseOr:with:": return try arithmetic("|", try argument(0), try argument(1))
        case "bitwiseXor:with:": return try arithmetic("^", try argument(0), try argument(1))
        case "leftshift:by:": return try arithmetic("<<", try argument(0), try argument(1))
        case "rightshift:by:": return try arithmetic(">>", try argument(0), try argument(1))
        case "onesComplement:":
            guard case .integer(let v) = try argument(0) else { throw FetchPredicateError(.evaluation, "\(name) needs an integer") }
            return .integer(~v)
        case "sqrt:": return .double(try number(0).squareRoot())
        case "log:": return .double(log10(try number(0)))
        case "ln:": return .double(Foundation.log(try number(0)))
        case "exp:": return .double(Foundation.exp(try number(0)))
        case "abs:":
            if case .integer(let v) = try argument(0) { return .integer(Swift.abs(v)) }
            return .double(Swift.abs(try number(0)))
        case "ceiling:": return .double(Foundation.ceil(try number(0)))
        case "floor:": return .double(Foundation.floor(try number(0)))
        case "trunc:": return .double(Foundation.trunc(try number(0)))
        case "lowercase:", "uppercase:":
            guard case .string(let text) = try argument(0) else { throw FetchPredicateError(.evaluation, "\(name) needs a string") }
            return .string(name == "lowercase:" ? text.lowercased() : text.uppercased())
        case "canonical:":
            // Core Data's canonical form for comparisons: case and diacritics folded away.
            guard case .string(let text) = try argument(0) else { throw FetchPredicateError(.evaluation, "\(name) needs a string") }
            return .string(text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil))
        case "length:":
            guard case .string(let text) = try argument(0) else { throw FetchPredicateError(.evaluation, "\(name) needs a string") }
            return .integer(Int64(text.count))
        case "now": return .date(Date())
        case "random": return .double(Double.random(in: 0..<1))
        case "noindex:": return try argument(0)
        case let name where name.hasPrefix("FUNCTION:"):
            return try valueMethod(String(name.dropFirst(9)), on: try argument(0), Array(arguments.dropFirst()))
        default:
            throw FetchPredicateError(.unsupported, "the function \(name.hasPrefix("FUNCTION:") ? "FUNCTION(…, '\(name.dropFirst(9))')" : name) is not supported")
        }
    }

    func arithmetic(_ op: String, _ lhs: EvaluationValue, _ rhs: EvaluationValue) throws -> EvaluationValue {
        if case .date(let date) = lhs, let seconds = rhs.number, op == "+" || op == "-" {
            return .date(date.addingTimeInterval(op == "+" ? seconds : -seconds))
        }
        if case .string(let a) = lhs, case .string(let b) = rhs, op == "+" { return .string(a + b) }
        if case .integer(let a) = lhs, case .integer(let b) = rhs {
            switch op {
            case "+": return .integer(a &+ b)
            case "-": return .integer(a &- b)
            case "*": return .integer(a &* b)
            case "/":
                guard b != 0 else { throw FetchPredicateError(.evaluation, "division by zero") }
                return a % b == 0 ? .integer(a / b) : .double(Double(a) / Double(b))
            case "%":
                guard b != 0 else { throw FetchPredicateError(.evaluation, "division by zero") }
                return .integer(a % b)
            case "&": return .integer(a & b)
            case "|": return .integer(a | b)
            case "^": return .integer(a ^ b)
            case "<<": return .integer(a << b)
            case ">>": return .integer(a >> b)
            case "**": return numeric(Foundation.pow(Double(a), Double(b)), integral: b >= 0)
            default: break
            }
        }
        guard let a = lhs.number, let b = rhs.number else {
            if case .null = lhs { return .null }
            if case .null = rhs { return .null }
            throw FetchPredicateError(.evaluation, "'\(op)' needs numbers")
        }
        switch op {
        case "+": return .double(a + b)
        case "-": return .double(a - b)
        case "*": return .double(a * b)
        case "/": return .double(a / b)
        case "%": return .double(a.truncatingRemainder(dividingBy: b))
        case "**": return .double(Foundation.pow(a, b))
        default: throw FetchPredicateError(.evaluation, "'\(op)' needs integers")
        }
    }

    private func cast(_ value: EvaluationValue, to type: String) throws -> EvaluationValue {
        switch type {
        case "NSDate", "Date":
            if case .date = value { return value }
            if let seconds = value.number { return .date(Date(timeIntervalSinceReferenceDate: seconds)) }
            if case .string(let text) = value, let seconds = Double(text) { return .date(Date(timeIntervalSinceReferenceDate: seconds)) }
        case "NSNumber", "Number":
            if case .date(let date) = value { return .double(date.timeIntervalSinceReferenceDate) }
            if case .string(let text) = value {
                if let integer = Int64(text) { return .integer(integer) }
                if let real = Double(text) { return .double(real) }
            }
            if value.number != nil { return value }
        case "NSString", "String":
            switch value {
            case .string: return value
            case .integer(let v): return .string("\(v)")
            case .double(let v): return .string("\(v)")
            case .decimal(let v): return .string("\(v)")
            case .date(let v): return .string("\(v.timeIntervalSinceReferenceDate)")
            case .bool(let v): return .string(v ? "1" : "0")
            case .uuid(let v): return .string(v.uuidString)
            case .uri(let v): return .string(v.absoluteString)
            default: break
            }
        default:
            throw FetchPredicateError(.unsupported, "CAST to '\(type)' is not supported (NSDate, NSNumber and NSString are)")
        }
        if case .null = value { return .null }
        throw FetchPredicateError(.evaluation, "cannot CAST this value to \(type)")
    }
}
