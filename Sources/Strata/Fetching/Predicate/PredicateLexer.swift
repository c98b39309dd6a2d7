/// Splits a predicate format string into tokens, as NSPredicate's grammar defines them:
/// quoted strings with escapes, decimal, hexadecimal, octal and binary numbers, `%` arguments,
/// `$` variables, `@` collection operators, reserved words (case-insensitive; `#` escapes one
/// used as a key) and operators.
struct PredicateLexer {
    static let keywords: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "LIKE", "MATCHES", "CONTAINS", "BEGINSWITH", "ENDSWITH", "ANY", "SOME", "ALL",
        "NONE", "NULL", "NIL", "SELF", "TRUE", "FALSE", "YES", "NO", "TRUEPREDICATE", "FALSEPREDICATE", "FIRST", "LAST",
        "SIZE", "SUBQUERY", "FUNCTION", "TERNARY", "CAST", "ANYKEY", "UTI-CONFORMS-TO", "UTI-EQUALS",
    ]

    private static let symbols = [
        "**", "==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "<<", ">>",
        "=", "<", ">", "!", "(", ")", "{", "}", "[", "]", ",", ".", "+", "-", "*", "/", "&", "|", "^", "~", ":",
    ]

    private let characters: [Character]
    private var index = 0

    init(_ text: String) {
        characters = Array(text)
    }

    /// The tokens of `format`, from ``recentTokens`` when it was lexed lately.
    static func tokens(of format: String) throws -> [PredicateToken] {
        guard format.utf8.count <= recentFormatLength else { return try tokenize(format) }
        if let tokens = recentTokens.withLock({ $0[format] }) { return tokens }
        let tokens = try tokenize(format)
        recentTokens.withLock { recent in
            if recent.count >= recentFormatsKept { recent.removeAll(keepingCapacity: true) }
            recent[format] = tokens
        }
        return tokens
    }

    /// The tokens of formats lexed lately, by format: code builds one predicate with new
    /// arguments in a loop (`email == %@` per lookup), and lexing it was 40% of each parse.
    /// Tokens are a function of the format alone; a format that fails to lex is not kept.
    private static let recentTokens = ThreadLocked<[String: [PredicateToken]]>([:])
    /// How many formats ``recentTokens`` keeps before it starts over, and the longest it keeps
    /// (longer ones are seldom built in loops).
    static let recentFormatsKept = 256
    static let recentFormatLength = 512

    static func tokenize(_ text: String) throws -> [PredicateToken] {
        var lexer = PredicateLexer(text)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func fail(_ message: String, at column: Int) -> FetchPredicateError {
        FetchPredicateError(.syntax, "\(message) at column \(column)", column: column)
    }

    private mutating func next() throws -> PredicateToken {
        while index < characters.count, characters[index].isWhitespace { index += 1 }
        let column = index + 1
        guard index < characters.count else { return PredicateToken(kind: .end, column: column) }
        let character = characters[index]

        if character == "\"" || character == "'" { return PredicateToken(kind: .string(try quoted(character)), column: column) }
        if character.isNumber { return PredicateToken(kind: try number(), column: column) }
        if character == "%" {
            index += 1
            var letters = ""
            while index < characters.count, characters[index].isLetter || characters[index] == "@" {
                letters.append(characters[index])
                index += 1
                if letters.last == "@" || ["K", "d", "i", "f", "F", "s", "u", "c", "x", "e", "E", "g", "G", "a", "A"].contains(letters.last.map(String.init) ?? "") { break }
            }
            guard !letters.isEmpty else { throw fail("expected an argument format after '%'", at: column) }
            return PredicateToken(kind: .argument(letters), column: column)
        }
        if character == "$" {
            index += 1
            let name = identifierCharacters()
            guard !name.isEmpty else { throw fail("expected a variable name after '$'", at: column) }
            return PredicateToken(kind: .variable(name), column: column)
        }
        if character == "@" {
            index += 1
            let name = identifierCharacters()
            guard !name.isEmpty else { throw fail("expected a collection operator after '@'", at: column) }
            return PredicateToken(kind: .collectionOperator(name), column: column)
        }
        if character == "#" {
            index += 1
            let name = identifierCharacters()
            guard !name.isEmpty else { throw fail("expected a key after '#'", at: column) }
            return PredicateToken(kind: .identifier(name), column: column)
        }
        if character.isLetter || character == "_" {
            let word = identifierCharacters()
            let upper = word.uppercased()
            if Self.keywords.contains(upper) { return PredicateToken(kind: .keyword(upper), column: column) }
            return PredicateToken(kind: .identifier(word), column: column)
        }
        for symbol in Self.symbols where matches(symbol) {
            index += symbol.count
            return PredicateToken(kind: .symbol(symbol), column: column)
        }
        throw fail("unexpected character '\(character)'", at: column)
    }

    private func matches(_ symbol: String) -> Bool {
        var position = index
        for character in symbol {
            guard position < characters.count, characters[position] == character else { return false }
            position += 1
        }
        return true
    }

    private mutating func identifierCharacters() -> String {
        var name = ""
        while index < characters.count, characters[index].isLetter || characters[index].isNumber || characters[index] == "_" {
            name.append(characters[index])
            index += 1
        }
        return name
    }

    private mutating func quoted(_ quote: Character) throws -> String {
        let column = index + 1
        index += 1
        var text = ""
        while index < characters.count {
            let character = characters[index]
            index += 1
            if character == quote { return text }
            guard character == "\\" else {
                text.append(character)
                continue
            }
            guard index < characters.count else { break }
            let escaped = characters[index]
            index += 1
            switch escaped {
            case "n": text.append("\n")
            case "t": text.append("\t")
            case "r": text.append("\r")
            case "0": text.append("\0")
            case "u":
                let hex = String(characters[index..<min(index + 4, characters.count)])
                guard hex.count == 4, let scalar = UInt32(hex, radix: 16).flatMap(Unicode.Scalar.init) else {
                    throw fail("expected four hexadecimal digits after '\\u'", at: index)
                }
                text.unicodeScalars.append(scalar)
                index += 4
            default: text.append(escaped)
            }
        }
        throw fail("the string that starts here is not closed", at: column)
    }

    private mutating func number() throws -> PredicateToken.Kind {
        let start = index
        if characters[index] == "0", index + 1 < characters.count, let radix = ["x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2][characters[index + 1]] {
            index += 2
            let digits = identifierCharacters()
            guard let value = Int64(digits, radix: radix) else { throw fail("'0\(characters[start + 1])\(digits)' is not a number", at: start + 1) }
            return .integer(value)
        }
        var text = ""
        var isReal = false
        while index < characters.count {
            let character = characters[index]
            if character.isNumber {
                text.append(character)
            } else if character == ".", !isReal, index + 1 < characters.count, characters[index + 1].isNumber {
                isReal = true
                text.append(character)
            } else if character == "e" || character == "E", index + 1 < characters.count,
                characters[index + 1].isNumber || ((characters[index + 1] == "-" || characters[index + 1] == "+") && index + 2 < characters.count && characters[index + 2].isNumber)
            {
                isReal = true
                text.append(character)
                text.append(characters[index + 1])
                index += 1
            } else {
                break
            }
            index += 1
        }
        if !isReal, let integer = Int64(text) { return .integer(integer) }
        guard let real = Double(text) else { throw fail("'\(text)' is not a number", at: start + 1) }
        return .real(real)
    }
}
