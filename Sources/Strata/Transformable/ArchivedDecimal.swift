import Foundation
import StrataFileFormats

/// `NSDecimalNumber`'s archived fields: the mantissa as eight 16-bit words (`NS.mantissa`,
/// little-endian when `NS.mantissa.bo` is 1), the words in use (`NS.length`), the power of ten
/// (`NS.exponent`), the sign (`NS.negative`) and whether it is normalized (`NS.compact`).
enum ArchivedDecimal {
    static func fields(of decimal: Decimal) throws -> KeyValuePairs<String, PropertyListNode> {
        guard decimal.isFinite else { throw TransformableValueError(.notArchivable, "\(decimal) is not a number an NSDecimalNumber holds") }
        let magnitude = decimal.magnitude
        let digits = magnitude.significand.description
        let words = Self.words(ofDigits: digits)
        var mantissa = Data()
        for index in 0..<8 {
            let word = index < words.count ? words[index] : 0
            mantissa += [UInt8(word & 0xFF), UInt8(word >> 8)]
        }
        return [
            "NS.exponent": .integer(Int64(magnitude.exponent)), "NS.length": .integer(Int64(words.count)),
            "NS.negative": .bool(decimal.sign == .minus && !decimal.isZero), "NS.compact": .bool(digits.last != "0" || decimal.isZero),
            "NS.mantissa.bo": .integer(1), "NS.mantissa": .data(mantissa),
        ]
    }

    static func decimal(from object: KeyedArchive.Object, archive: KeyedArchive) throws -> Decimal {
        func integer(_ key: String) throws -> Int64? {
            switch try archive.resolve(object[key]) {
            case .integer(let v)?: v
            case .bool(let v)?: v ? 1 : 0
            default: nil
            }
        }
        guard case .data(let mantissa)? = try archive.resolve(object["NS.mantissa"]), let exponent = try integer("NS.exponent"),
            let length = try integer("NS.length"), (0...8).contains(length), mantissa.count >= Int(length) * 2
        else {
            throw TransformableValueError(.malformedArchive, "the keyed archive is damaged: a decimal number lacks its mantissa or exponent")
        }
        let littleEndian = try integer("NS.mantissa.bo") != 0
        let bytes = [UInt8](mantissa)
        let words = (0..<Int(length)).map { index -> UInt16 in
            let (a, b) = (UInt16(bytes[index * 2]), UInt16(bytes[index * 2 + 1]))
            return littleEndian ? a | b << 8 : a << 8 | b
        }
        let negative = try integer("NS.negative") == 1
        if length == 0 {
            // NSDecimalNumber's "not a number" is a zero-length negative mantissa.
            guard !negative else { throw TransformableValueError(.malformedArchive, "the archive holds a decimal that is not a number") }
            return 0
        }
        guard let significand = Decimal(string: Self.digits(ofWords: words), locale: Locale(identifier: "en_US_POSIX")) else {
            throw TransformableValueError(.malformedArchive, "the keyed archive is damaged: a decimal's mantissa cannot be read")
        }
        return Decimal(sign: negative ? .minus : .plus, exponent: Int(exponent), significand: significand)
    }

    /// A whole number's decimal digits as little-endian base-65536 words.
    static func words(ofDigits digits: String) -> [UInt16] {
        var number = digits.compactMap(\.wholeNumberValue)
        var words: [UInt16] = []
        while !(number.isEmpty || number.allSatisfy { $0 == 0 }) {
            var remainder = 0
            var quotient: [Int] = []
            for digit in number {
                let value = remainder * 10 + digit
                quotient.append(value / 65_536)
                remainder = value % 65_536
            }
            words.append(UInt16(remainder))
            number = Array(quotient.drop { $0 == 0 })
        }
        return words
    }

    /// Little-endian base-65536 words as a whole number's decimal digits.
    static func digits(ofWords words: [UInt16]) -> String {
        var number = words.reversed().map(Int.init)  // most significant first
        var digits: [Character] = []
        while !(number.isEmpty || number.allSatisfy { $0 == 0 }) {
            var remainder = 0
            var quotient: [Int] = []
            for word in number {
                let value = remainder * 65_536 + word
                quotient.append(value / 10)
                remainder = value % 10
            }
            digits.append(Character(String(remainder)))
            number = Array(quotient.drop { $0 == 0 })
        }
        return digits.isEmpty ? "0" : String(digits.reversed())
    }
}
