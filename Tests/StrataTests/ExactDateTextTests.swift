import Foundation
import StrataFileFormats
@testable import Strata
import StrataTestSupport
import Testing

/// Dates in `strata dump`'s JSON read back as the same `Double` (issue 28, class 7: a millisecond
/// format made dump → import change dates).
@Suite struct ExactDateTextTests {
    @Test func aDatesTextReadsBackBitForBit() {
        var random = SplitMix64(seed: 0xDA7E)
        var seconds: [Double] = [0, 0.5, -0.25, 1, -1, 490_190_919.69, -994_156_939.999999, 737_057_646.84, 1e-9, -1e-9, 86_400.000001]
        for _ in 0..<20_000 {
            let bits = random.next()
            switch bits % 4 {
            case 0: seconds.append(Double(Int64(bitPattern: bits) % 4_000_000_000) + Double(bits % 1_000_000) / 1_000_000)
            case 1: seconds.append(Double(Int64(bitPattern: bits) % 4_000_000_000_000) / 1_000)
            case 2: seconds.append(Double(bitPattern: 0x41C0_0000_0000_0000 | (bits & 0x000F_FFFF_FFFF_FFFF)) * (bits & 1 == 0 ? 1 : -1))
            default: seconds.append(Double(Int32(truncatingIfNeeded: bits)) / Double(1 << (bits % 40)))
            }
        }
        for value in seconds {
            let text = ExactDateText.format(Date(timeIntervalSinceReferenceDate: value))
            let read = ExactDateText.parse(text)?.timeIntervalSinceReferenceDate
            #expect(read?.bitPattern == value.bitPattern || (read == 0 && value == 0), "\(value) → \(text) → \(String(describing: read))")
        }
    }

    /// The expected texts were computed independently (Python's `datetime` from 2001-01-01).
    @Test func theTextIsISO8601WithTheDigitsTheDateNeeds() {
        #expect(ExactDateText.format(Date(timeIntervalSinceReferenceDate: 490_190_919.69)) == "2016-07-14T12:08:39.69Z")
        #expect(ExactDateText.format(Date(timeIntervalSinceReferenceDate: 0)) == "2001-01-01T00:00:00Z")
        #expect(ExactDateText.format(Date(timeIntervalSinceReferenceDate: -0.25)) == "2000-12-31T23:59:59.75Z")
        #expect(ExactDateText.format(Date(timeIntervalSinceReferenceDate: -994_156_939.999999)) == "1969-07-01T13:17:40.000001Z")
        // What dumps wrote before still reads.
        #expect(ExactDateText.parse("2016-07-14T11:48:39.690Z")?.timeIntervalSinceReferenceDate == 490_189_719.69)
        #expect(ExactDateText.parse("1775-12-16T00:00:00Z") != nil)
    }
}
