/// A recursive-descent parser for Core Data's predicate and expression format strings.
struct PredicateParser {
    private let tokens: [PredicateToken]
    private var position = 0
    private let arguments: [Any]
    private var nextArgument = 0
    /// Whether specifiers past the given arguments stay in place as ``ValueExpression/placeholder(_:)``s.
    private let keepsPlaceholders: Bool

    init(format: String, arguments: [Any], keepsPlaceholders: Bool = false) throws {
        tokens = try PredicateLexer.tokens(of: format)
        self.arguments = arguments
        self.keepsPlaceholders = keepsPlaceholders
    }

    mutating func parsePredicateOnly() throws -> FetchPredicate {
        let predicate = try parsePredicate()
        try expectEnd()
        return predicate
    }

    mutating func parseExpressionOnly() throws -> ValueExpression {
        let expression = try parseExpression()
        try expectEnd()
        return expression
    }

    // MARK: Tokens

    private var current: PredicateToken { tokens[position] }

    private mutating func advance() -> PredicateToken {
        defer { if position < tokens.count - 1 { position += 1 } }
        return tokens[position]
    }

    private func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }
    private func isKeyword(_ keyword: String) -> Bool { current.kind == .keyword(keyword) }

    private mutating func accept(symbol: String) -> Bool {
        guard isSymbol(symbol) else { return false }
        _ = advance()
        return true
    }

    private mutating func accept(keyword: String) -> Bool {
        guard isKeyword(keyword) else { return false }
        _ = advance()
        return true
    }

    private func describe(_ token: PredicateToken) -> String {
        switch token.kind {
        case .identifier(let name): "'\(name)'"
        case .keyword(let word): word
        case .string(let text): PredicateValue.quote(text)
        case .integer(let value): "\(value)"
        case .real(let value): "\(value)"
        case .argument(let format): "'%\(format)'"
        case .variable(let name): "'$\(name)'"
        case .collectionOperator(let name): "'@\(name)'"
        case .symbol(let symbol): "'\(symbol)'"
        case .end: "the end"
        }
    }

    /// "expected X after 'previous' at column N" (or "… but found Y").
    private func fail(_ expected: String) -> FetchPredicateError {
        let previous = position > 0 ? " after \(describe(tokens[position - 1]))" : ""
        let found = current.kind == .end ? "" : ", found \(describe(current))"
        return FetchPredicateError(.syntax, "expected \(expected)\(previous) at column \(current.column)\(found)", column: current.column)
    }

    private mutating func expect(symbol: String, _ what: String) throws {
        guard accept(symbol: symbol) else { throw fail(what) }
    }

    private func expectEnd() throws {
        guard current.kind == .end else {
            throw FetchPredicateError(
                .syntax, "unexpected \(describe(current)) at column \(current.column)", column: current.column)
        }
    }

    // MARK: Predicates

    private mutating func parsePredicate() throws -> FetchPredicate {
        var terms = [try parseConjunction()]
        while accept(keyword: "OR") || accept(symbol: "||") { terms.append(try parseConjunction()) }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    private mutating func parseConjunction() throws -> FetchPredicate {
        var terms = [try parseNegation()]
        while accept(keyword: "AND") || accept(symbol: "&&") { terms.append(try parseNegation()) }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    private mutating func parseNegation() throws -> FetchPredicate {
        if accept(keyword: "NOT") || accept(symbol: "!") { return .not(try parseNegation()) }
        return try parsePrimaryPredicate()
    }

    private mutating func parsePrimaryPredicate() throws -> FetchPredicate {
        if accept(keyword: "TRUEPREDICATE") { return .constant(true) }
        if accept(keyword: "FALSEPREDICATE") { return .constant(false) }
        if isSymbol("(") {
            // A parenthesis opens either a predicate or an expression ("(a + b) > 3"): try the
            // predicate first, and fall back to a comparison. When both fail, the error of the
            // attempt that got further says best what is wrong.
            let saved = (position, nextArgument)
            _ = advance()
            var predicateError: FetchPredicateError?
            do {
                let predicate = try parsePredicate()
                if accept(symbol: ")"), !startsComparisonOperator { return predicate }
                if !startsComparisonOperator { predicateError = fail("')'") }
            } catch let error as FetchPredicateError {
                predicateError = error
            }
            (position, nextArgument) = saved
            do {
                return try parseComparison()
            } catch let error as FetchPredicateError {
                if let predicateError, (predicateError.column ?? 0) > (error.column ?? 0) { throw predicateError }
                throw error
            }
        }
        return try parseComparison()
    }

    private var startsComparisonOperator: Bool {
        switch current.kind {
        case .symbol(let symbol): ["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "+", "-", "*", "/", "**", "."].contains(symbol)
        case .keyword(let word): ["IN", "BETWEEN", "LIKE", "MATCHES", "CONTAINS", "BEGINSWITH", "ENDSWITH"].contains(word)
        default: false
        }
    }

    private mutating func parseComparison() throws -> FetchPredicate {
        var modifier = FetchPredicate.Modifier.direct
        if accept(keyword: "ANY") || accept(keyword: "SOME") {
            modifier = .any
        } else if accept(keyword: "ALL") {
            modifier = .all
        } else if accept(keyword: "NONE") {
            modifier = .none
        }
        let lhs = try parseExpression()
        let negated = accept(keyword: "NOT")
        // A key path alone (a Boolean attribute, or `%K`) is a predicate, as Foundation reads it:
        // the key path's value is YES.
        if !negated, modifier == .direct, Self.isKeyPath(lhs), endsPredicate(current) {
            return .comparison(.init(lhs, .equal, .constant(.bool(true))))
        }
        guard let op = parseOperator() else { throw fail(negated ? "an operator after NOT" : "a comparison operator") }
        let options = try parseOptions()
        guard current.kind != .end else { throw fail("a value") }
        let rhs = try parseExpression()
        let comparison = FetchPredicate.comparison(.init(lhs, op, rhs, modifier: modifier, options: options))
        return negated ? .not(comparison) : comparison
    }

    private static func isKeyPath(_ expression: ValueExpression) -> Bool {
        switch expression {
        case .key: true
        case .placeholder("K"): true
        default: false
        }
    }

    /// Whether a token ends a predicate: the end, a closing parenthesis, AND or OR.
    private func endsPredicate(_ token: PredicateToken) -> Bool {
        switch token.kind {
        case .end, .symbol(")"), .symbol("&&"), .symbol("||"), .keyword("AND"), .keyword("OR"): true
        default: false
        }
    }

    /// The comparison operators, by how a format writes them.
    private static let operators: [String: FetchPredicate.Operator] = [
        "==": .equal, "=": .equal, "!=": .notEqual, "<>": .notEqual, "<": .lessThan, "<=": .lessThanOrEqual,
        "=<": .lessThanOrEqual, ">": .greaterThan, ">=": .greaterThanOrEqual, "=>": .greaterThanOrEqual,
        "BEGINSWITH": .beginsWith, "ENDSWITH": .endsWith, "CONTAINS": .contains, "LIKE": .like, "MATCHES": .matches,
        "IN": .in, "BETWEEN": .between,
    ]

    private mutating func parseOperator() -> FetchPredicate.Operator? {
        switch current.kind {
        case .symbol(let symbol), .keyword(let symbol):
            guard let op = Self.operators[symbol] else { return nil }
            _ = advance()
            return op
        default:
            return nil
        }
    }

    private mutating func parseOptions() throws -> FetchPredicate.Options {
        guard isSymbol("[") else { return [] }
        _ = advance()
        guard case .identifier(let letters) = current.kind else { throw fail("comparison options (c, d or n)") }
        _ = advance()
        var options: FetchPredicate.Options = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            case "l": continue
            default: throw FetchPredicateError(.syntax, "unknown comparison option '\(letter)' at column \(tokens[position - 1].column)")
            }
        }
        try expect(symbol: "]", "']' to close the comparison options")
        return options
    }

    // MARK: Expressions

    private mutating func parseExpression() throws -> ValueExpression {
        try parseBinary(level: 0)
    }

    /// Operator precedence, lowest first: bitwise or/xor, bitwise and, shifts, additive,
    /// multiplicative, power.
    private static let levels: [[String]] = [["|", "^"], ["&"], ["<<", ">>"], ["+", "-"], ["*", "/"], ["**"]]

    private mutating func parseBinary(level: Int) throws -> ValueExpression {
        guard level < Self.levels.count else { return try parseUnary() }
        var lhs = try parseBinary(level: level + 1)
        while case .symbol(let symbol) = current.kind, Self.levels[level].contains(symbol) {
            _ = advance()
            guard current.kind != .end else { throw fail("a value") }
            let rhs = try parseBinary(level: symbol == "**" ? level : level + 1)
            lhs = .binary(symbol, lhs, rhs)
        }
        return lhs
    }

    private mutating func parseUnary() throws -> ValueExpression {
        if accept(symbol: "-") {
            let operand = try parseUnary()
            if case .constant(.integer(let value)) = operand { return .constant(.integer(-value)) }
            if case .constant(.double(let value)) = operand { return .constant(.double(-value)) }
            return .unary("-", operand)
        }
        if accept(symbol: "~") { return .unary("~", try parseUnary()) }
        return try parsePostfix(try parsePrimary())
    }

    private mutating func parsePostfix(_ base: ValueExpression) throws -> ValueExpression {
        var expression = base
        while true {
            if accept(symbol: ".") {
                expression = try parseMember(of: expression)
            } else if case .collectionOperator = current.kind, case .variable = expression {
                expression = try parseMember(of: expression)
            } else if accept(symbol: "[") {
                let index: ValueExpression.Subscript
                if accept(keyword: "FIRST") {
                    index = .first
                } else if accept(keyword: "LAST") {
                    index = .last
                } else if accept(keyword: "SIZE") {
                    index = .size
                } else {
                    index = .index(try parseExpression())
                }
                try expect(symbol: "]", "']' to close the subscript")
                expression = .subscripted(expression, index)
            } else {
                return expression
            }
        }
    }

    /// A key or a collection operator after a '.'.
    private mutating func parseMember(of base: ValueExpression) throws -> ValueExpression {
        switch current.kind {
        case .identifier(let key):
            _ = advance()
            return .key(base, key)
        case .collectionOperator(let name):
            _ = advance()
            var path: [String] = []
            while isSymbol("."), case .identifier(let key) = tokens[position + 1].kind {
                _ = advance()
                _ = advance()
                path.append(key)
            }
            return .collectionOperator(base, name, path)
        case .keyword(let word) where ["FIRST", "LAST", "SIZE"].contains(word):
            _ = advance()
            return .key(base, word.lowercased())
        case .argument("K"):
            // `%K` inside a key path (`ANY %K.%K == %@`, `$x.%K`): the argument's keys, on `base`.
            let token = advance()
            let keys = try argument("K", column: token.column)
            return rerooted(keys, onto: base)
        default:
            throw fail("a key")
        }
    }

    private mutating func parsePrimary() throws -> ValueExpression {
        let token = current
        switch token.kind {
        case .integer(let value):
            _ = advance()
            return .constant(.integer(value))
        case .real(let value):
            _ = advance()
            return .constant(.double(value))
        case .string(let text):
            _ = advance()
            return .constant(.string(text))
        case .variable(let name):
            _ = advance()
            return .variable(name)
        case .argument(let format):
            _ = advance()
            return try argument(format, column: token.column)
        case .collectionOperator:
            return try parseMember(of: .evaluatedObject)
        case .identifier(let name):
            _ = advance()
            if isSymbol(":") || isSymbol("(") { return try parseFunction(name) }
            return .key(.evaluatedObject, name)
        case .keyword(let word):
            return try parseKeywordPrimary(word)
        case .symbol("{"):
            _ = advance()
            var items: [ValueExpression] = []
            if !accept(symbol: "}") {
                repeat { items.append(try parseExpression()) } while accept(symbol: ",")
                try expect(symbol: "}", "',' or '}' in the list")
            }
            return .aggregate(items)
        case .symbol("("):
            _ = advance()
            let expression = try parseExpression()
            try expect(symbol: ")", "')'")
            return expression
        default:
            throw fail("a value")
        }
    }

    private mutating func parseKeywordPrimary(_ word: String) throws -> ValueExpression {
        _ = advance()
        switch word {
        case "SELF": return .evaluatedObject
        case "NULL", "NIL": return .constant(.null)
        case "TRUE", "YES": return .constant(.bool(true))
        case "FALSE", "NO": return .constant(.bool(false))
        case "SUBQUERY":
            try expect(symbol: "(", "'(' after SUBQUERY")
            let collection = try parseExpression()
            try expect(symbol: ",", "',' after the SUBQUERY collection")
            guard case .variable(let variable) = current.kind else { throw fail("a $variable in SUBQUERY") }
            _ = advance()
            try expect(symbol: ",", "',' after the SUBQUERY variable")
            let predicate = try parsePredicate()
            try expect(symbol: ")", "')' to close SUBQUERY")
            return .subquery(collection, variable, predicate)
        case "TERNARY":
            try expect(symbol: "(", "'(' after TERNARY")
            let predicate = try parsePredicate()
            try expect(symbol: ",", "',' after the TERNARY condition")
            let yes = try parseExpression()
            try expect(symbol: ",", "',' between the TERNARY values")
            let no = try parseExpression()
            try expect(symbol: ")", "')' to close TERNARY")
            return .ternary(predicate, yes, no)
        case "CAST":
            try expect(symbol: "(", "'(' after CAST")
            let value = try parseExpression()
            try expect(symbol: ",", "',' after the CAST value")
            guard case .constant(.string(let type)) = try parseExpression() else { throw fail("a type name string in CAST") }
            try expect(symbol: ")", "')' to close CAST")
            return .cast(value, type)
        case "FUNCTION":
            try expect(symbol: "(", "'(' after FUNCTION")
            let receiver = try parseExpression()
            try expect(symbol: ",", "',' after the FUNCTION receiver")
            guard case .constant(.string(let selector)) = try parseExpression() else { throw fail("a selector string in FUNCTION") }
            var arguments = [receiver]
            while accept(symbol: ",") { arguments.append(try parseExpression()) }
            try expect(symbol: ")", "')' to close FUNCTION")
            return .function("FUNCTION:\(selector)", arguments)
        default:
            position -= 1
            throw fail("a value")
        }
    }

    /// `name:(args)`, `add:to:(a, b)` or `now()`.
    private mutating func parseFunction(_ name: String) throws -> ValueExpression {
        var selector = name
        while accept(symbol: ":") {
            selector += ":"
            if case .identifier(let part) = current.kind, tokens[position + 1].kind == .symbol(":") {
                _ = advance()
                selector += part
            }
        }
        try expect(symbol: "(", "'(' after the function name \(selector)")
        var arguments: [ValueExpression] = []
        if !accept(symbol: ")") {
            repeat { arguments.append(try parseExpression()) } while accept(symbol: ",")
            try expect(symbol: ")", "',' or ')' in the arguments of \(selector)")
        }
        return .function(selector, arguments)
    }

    /// A key path `%K` gave (a chain of keys on the evaluated object), on `base` instead; a
    /// placeholder left in place stays one key.
    private func rerooted(_ path: ValueExpression, onto base: ValueExpression) -> ValueExpression {
        switch path {
        case .evaluatedObject: base
        case .key(let inner, let key): .key(rerooted(inner, onto: base), key)
        case .placeholder(let format): .key(base, "%" + format)
        default: path
        }
    }

    /// The specifiers of integer arguments, as `String(format:)` reads them (`%lli` is `%lld`).
    static let integerFormats = [
        "d", "i", "ld", "li", "lld", "lli", "qd", "qi", "hd", "hi", "hhd", "hhi", "zd", "u", "lu", "llu", "qu", "hu", "hhu",
        "zu", "c",
    ]
    /// The specifiers of floating-point arguments: `%a` and `%la` are hexadecimal floats in a
    /// string, but a number as an argument.
    static let floatingFormats = ["f", "lf", "F", "e", "le", "E", "g", "lg", "G", "a", "la", "A"]

    private mutating func argument(_ format: String, column: Int) throws -> ValueExpression {
        if nextArgument >= arguments.count && keepsPlaceholders {
            let known = Self.integerFormats + Self.floatingFormats + ["K", "@", "s"]
            guard known.contains(format) else {
                throw FetchPredicateError(.syntax, "unknown argument format '%\(format)' at column \(column)", column: column)
            }
            return .placeholder(format)
        }
        guard nextArgument < arguments.count else {
            throw FetchPredicateError(.badArgument, "no argument for '%\(format)' at column \(column)", column: column)
        }
        let value = arguments[nextArgument]
        nextArgument += 1
        switch format {
        case "K":
            guard let path = value as? String else {
                throw FetchPredicateError(.badArgument, "'%K' at column \(column) needs a key path string, not \(type(of: value))", column: column)
            }
            return .keyPath(path)
        case "@":
            return .constant(try PredicateValue(argument: value))
        case _ where Self.integerFormats.contains(format):
            let constant = try PredicateValue(argument: value)
            guard case .integer = constant else {
                throw FetchPredicateError(.badArgument, "'%\(format)' at column \(column) needs an integer, not \(type(of: value))", column: column)
            }
            return .constant(constant)
        case _ where Self.floatingFormats.contains(format):
            switch try PredicateValue(argument: value) {
            case .double(let number): return .constant(.double(number))
            case .integer(let number): return .constant(.double(Double(number)))
            default:
                throw FetchPredicateError(.badArgument, "'%\(format)' at column \(column) needs a number, not \(type(of: value))", column: column)
            }
        case "s":
            guard let text = value as? String else {
                throw FetchPredicateError(.badArgument, "'%s' at column \(column) needs a string, not \(type(of: value))", column: column)
            }
            return .constant(.string(text))
        default:
            throw FetchPredicateError(.syntax, "unknown argument format '%\(format)' at column \(column)", column: column)
        }
    }
}
