import Foundation

#if !canImport(UIKit) && !canImport(AppKit)
// UIKit and AppKit give `IndexPath` its section and item (or row); Foundation alone, on Linux,
// does not. A fetched results controller speaks in them, so Strata adds them where they lack.
extension IndexPath {
    /// An index path of two indexes: the section, then the item in it.
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// An index path of two indexes: the section, then the row in it.
    public init(row: Int, section: Int) {
        self.init(indexes: [section, row])
    }

    /// The first index.
    public var section: Int { self[0] }
    /// The second index.
    public var item: Int { self[1] }
    /// The second index.
    public var row: Int { self[1] }
}
#endif
