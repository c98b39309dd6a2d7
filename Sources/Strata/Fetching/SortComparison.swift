import Foundation

/// How a sort compares two strings: the selector of Core Data's
/// `NSSortDescriptor(key:ascending:selector:)`, under the `NSString` method's name.
///
/// Swift on Linux has no `#selector`; where Core Data code writes
/// `selector: #selector(NSString.localizedStandardCompare(_:))`, Strata's reads
/// `selector: .localizedStandardCompare`. Core Data's SQLite store sorts by these five (its
/// other selectors and comparator blocks are refused by fetch requests, there as here, where
/// there is no way to spell them). Values that are not strings sort as with ``compare``.
///
/// The localized comparisons use the process's current locale (`Locale.current`), as Core
/// Data's do; a store cannot sort by them, so a fetch sorted by one sorts the matches in
/// memory, after the store has matched them.
public struct SortComparison: Sendable, Hashable, CustomStringConvertible {
    /// The `NSString` selector's name: `"localizedStandardCompare:"`.
    public let selectorName: String
    /// The comparison the name stands for, told apart without comparing names (a sort compares
    /// strings a million times).
    private let kind: Kind

    private enum Kind: Sendable, Hashable {
        case literal, caseInsensitive, localized, localizedCaseInsensitive, localizedStandard
    }

    private init(_ selectorName: String, _ kind: Kind) {
        self.selectorName = selectorName
        self.kind = kind
    }

    /// `compare:`: by code point, as Core Data's SQLite store orders strings (its `BINARY`
    /// collation) and as every Strata store does, so a store may sort by it in its query.
    /// (`NSString`'s method itself compares canonical decompositions: Core Data sorts objects
    /// in memory and in its store differently there; Strata sorts both as the store.)
    public static let compare = SortComparison("compare:", .literal)
    /// `caseInsensitiveCompare:`: ignoring case, as `NSString`'s method (which compares
    /// characters by their canonical decomposition: `"ångström"` before `"book"`).
    public static let caseInsensitiveCompare = SortComparison("caseInsensitiveCompare:", .caseInsensitive)
    /// `localizedCompare:`: by the current locale's collation (`"éclair"` beside `"Eclair"`).
    public static let localizedCompare = SortComparison("localizedCompare:", .localized)
    /// `localizedCaseInsensitiveCompare:`: by the current locale's collation, ignoring case.
    public static let localizedCaseInsensitiveCompare = SortComparison("localizedCaseInsensitiveCompare:", .localizedCaseInsensitive)
    /// `localizedStandardCompare:`: as the Finder sorts file names — the current locale's
    /// collation, case-insensitive, digits by their numeric value (`"file2"` before `"file10"`).
    public static let localizedStandardCompare = SortComparison("localizedStandardCompare:", .localizedStandard)

    public var description: String { selectorName }

    /// The order of two strings under this comparison, after the descriptor's `options` (if
    /// any) have folded them.
    func order(_ a: String, _ b: String, options: FetchPredicate.Options) -> ComparisonResult {
        if kind == .literal, options.isEmpty { return PredicateEvaluator.literalOrder(a, b) }
        let (a, b) = (PredicateEvaluator.fold(a, options), PredicateEvaluator.fold(b, options))
        return switch kind {
        case .caseInsensitive: a.caseInsensitiveCompare(b)
        case .localized: a.localizedCompare(b)
        case .localizedCaseInsensitive: a.localizedCaseInsensitiveCompare(b)
        case .localizedStandard: a.localizedStandardCompare(b)
        case .literal: PredicateEvaluator.literalOrder(a, b)
        }
    }
}
