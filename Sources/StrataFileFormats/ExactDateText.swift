import Foundation

/// Dates as ISO 8601 text that reads back as the same `Date`, bit for bit: whole seconds as ISO
/// 8601 (`2016-07-14T11:50:19`), then as many fractional digits as the date's seconds since 2001
/// need to read back exactly (`.69Z`; `.5Z`; none for whole seconds). A millisecond format
/// drops the rest of a `Double`, so `strata dump` then `import` changed dates.
///
/// The digits are those of the shortest decimal that is the same double (`490190919.69` gives
/// `.69`), and the text reads back as that decimal. Before 2001 the seconds are negative: the
/// text names the whole second before the date and the decimal complement of the digits
/// (`-994156939.999999` is `…40.000001`), which reads back as the same decimal.
package enum ExactDateText {
    private static let wholeSeconds = Date.ISO8601FormatStyle()
    private static let milliseconds = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    package static func format(_ date: Date) -> String {
        let seconds = date.timeIntervalSinceReferenceDate
        guard seconds.isFinite, abs(seconds) < 1e11 else { return milliseconds.format(date) }  // beyond year 5000
        let parts = fixed(abs(seconds)).split(separator: ".", maxSplits: 1)
        let integer = Double(parts[0]) ?? abs(seconds).rounded(.down)
        let fraction = parts.count > 1 ? String(parts[1].reversed().drop { $0 == "0" }.reversed()) : ""
        let whole = seconds >= 0 || fraction.isEmpty ? (seconds >= 0 ? integer : -integer) : -integer - 1
        let digits = seconds >= 0 || fraction.isEmpty ? fraction : complement(fraction)
        let base = wholeSeconds.format(Date(timeIntervalSinceReferenceDate: whole))
        guard !digits.isEmpty, base.hasSuffix("Z") else { return base }
        return base.dropLast() + "." + digits + "Z"
    }

    /// `10ⁿ − digits` as n digits: the fraction that adds to `digits`' to make one.
    private static func complement(_ digits: String) -> String {
        // 99…9 − digits, plus one at the last place: no carry, as the last digit is not 0.
        let result = digits.reversed().enumerated().map { position, digit in
            Character(String((position == 0 ? 10 : 9) - (digit.wholeNumberValue ?? 0)))
        }
        return String(result.reversed())
    }

    /// The date `text` names: this type's form, or any ISO 8601 date Foundation reads.
    package static func parse(_ text: String) -> Date? {
        if text.hasSuffix("Z"), let dot = text.lastIndex(of: "."), text.distance(from: dot, to: text.endIndex) > 2 {
            let digits = text[text.index(after: dot)..<text.index(before: text.endIndex)]
            if digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
                let whole = try? wholeSeconds.parse(String(text[..<dot]) + "Z").timeIntervalSinceReferenceDate
            {
                let trimmed = String(digits.reversed().drop { $0 == "0" }.reversed())
                let decimal =
                    whole >= 0 || trimmed.isEmpty
                    ? "\(Int64(whole)).\(trimmed.isEmpty ? "0" : trimmed)" : "-\(Int64(-whole) - 1).\(complement(trimmed))"
                if let seconds = Double(decimal) { return Date(timeIntervalSinceReferenceDate: seconds) }
            }
        }
        return (try? milliseconds.parse(text)) ?? (try? wholeSeconds.parse(text))
    }

    /// The shortest decimal that is `value`, in fixed notation (`1e-07` as `0.0000001`).
    package static func fixed(_ value: Double) -> String {
        let text = "\(value)"
        guard let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }), let exponent = Int(text[text.index(after: e)...]) else { return text }
        let mantissa = text[..<e]
        let negative = mantissa.hasPrefix("-")
        let unsigned = negative ? mantissa.dropFirst() : mantissa[...]
        let parts = unsigned.split(separator: ".", maxSplits: 1)
        var digits = String(parts[0]) + (parts.count > 1 ? String(parts[1]) : "")
        var point = parts[0].count + exponent  // digits before the decimal point
        if point <= 0 {
            digits = String(repeating: "0", count: 1 - point) + digits
            point = 1
        } else if point > digits.count {
            digits += String(repeating: "0", count: point - digits.count)
        }
        let integer = digits.prefix(point), fraction = digits.dropFirst(point)
        return (negative ? "-" : "") + integer + (fraction.isEmpty ? "" : "." + fraction)
    }
}
