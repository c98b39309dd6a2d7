import Foundation

extension PredicateEvaluator {
    /// The methods `FUNCTION(receiver, "selector", …)` may call on a value, as Core Data sends
    /// the selector to the receiver object: the `NSString` and `NSNumber` methods mapping
    /// models and predicates use. Sending any selector to `nil` gives `nil`, as in Objective-C.
    static let valueMethods: Set = [
        "uppercaseString", "lowercaseString", "capitalizedString", "length", "stringByAppendingString:", "stringValue", "description",
        "intValue", "integerValue", "longLongValue", "doubleValue", "floatValue", "boolValue",
    ]

    /// `receiver`'s answer to `selector` with `arguments`.
    func valueMethod(_ selector: String, on receiver: EvaluationValue, _ arguments: [EvaluationValue]) throws -> EvaluationValue {
        guard Self.valueMethods.contains(selector) else {
            throw FetchPredicateError(.unsupported, "FUNCTION(…, '\(selector)') is not supported: Strata answers \(Self.valueMethods.sorted().joined(separator: ", "))")
        }
        if case .null = receiver { return .null }
        switch (selector, receiver) {
        case ("uppercaseString", .string(let text)): return .string(text.uppercased())
        case ("lowercaseString", .string(let text)): return .string(text.lowercased())
        case ("capitalizedString", .string(let text)): return .string(text.capitalized)
        case ("length", .string(let text)): return .integer(Int64(text.utf16.count))
        case ("stringByAppendingString:", .string(let text)):
            guard case .string(let suffix)? = arguments.first else {
                throw FetchPredicateError(.evaluation, "stringByAppendingString: needs a string argument")
            }
            return .string(text + suffix)
        case ("stringValue", _), ("description", _):
            if case .string = receiver { return receiver }
            guard let text = Self.text(of: receiver) else { break }
            return .string(text)
        case ("intValue", .string(let text)), ("integerValue", .string(let text)), ("longLongValue", .string(let text)):
            return .integer(Self.leadingInteger(text))
        case ("doubleValue", .string(let text)), ("floatValue", .string(let text)):
            return .double(Self.leadingNumber(text))
        case ("boolValue", .string(let text)):
            // NSString: YES for a leading Y, y, T, t or nonzero digit, after whitespace and sign.
            let trimmed = text.drop { $0.isWhitespace || $0 == "+" || $0 == "-" || $0 == "0" }
            return .bool(trimmed.first.map { "YyTt123456789".contains($0) } ?? false)
        case ("intValue", _), ("integerValue", _), ("longLongValue", _):
            if case .bool(let value) = receiver { return .integer(value ? 1 : 0) }
            guard let number = receiver.number else { break }
            return .integer(Int64(exactly: number.rounded(.towardZero)) ?? 0)
        case ("doubleValue", _), ("floatValue", _):
            if case .bool(let value) = receiver { return .double(value ? 1 : 0) }
            guard let number = receiver.number else { break }
            return .double(number)
        case ("boolValue", _):
            if case .bool = receiver { return receiver }
            guard let number = receiver.number else { break }
            return .bool(number != 0)
        default: break
        }
        throw FetchPredicateError(.evaluation, "a value of this kind does not answer \(selector)")
    }

    private static func text(of value: EvaluationValue) -> String? {
        switch value {
        case .integer(let v): String(v)
        case .double(let v): String(v)
        case .decimal(let v): "\(v)"
        case .bool(let v): v ? "1" : "0"
        case .uuid(let v): v.uuidString
        case .uri(let v): v.absoluteString
        default: nil
        }
    }

    /// NSString's `intValue`: the integer its text starts with, after whitespace; 0 when none.
    private static func leadingInteger(_ text: String) -> Int64 {
        let trimmed = text.drop(while: \.isWhitespace)
        let sign = trimmed.first.map { $0 == "-" || $0 == "+" } == true ? trimmed.prefix(1) : ""
        let digits = trimmed.dropFirst(sign.count).prefix(while: \.isASCIIDigit)
        return Int64(sign + digits) ?? (digits.isEmpty ? 0 : (sign == "-" ? .min : .max))
    }

    /// NSString's `doubleValue`: the number its text starts with, after whitespace; 0 when none.
    private static func leadingNumber(_ text: String) -> Double {
        let trimmed = String(text.drop(while: \.isWhitespace))
        var end = trimmed.endIndex
        while end > trimmed.startIndex {
            if let number = Double(trimmed[..<end]), number.isFinite { return number }
            end = trimmed.index(before: end)
        }
        return 0
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
