import Foundation

/// The second data set (issue 34): an object graph, where Core Data's peers lose if anywhere.
/// Authors write books (one author each; one book in four an ebook, a subentity that shares
/// the book table), and books carry tags (many-to-many). The same values for every peer.
///
/// Of `objects` objects, one in 1,000 is a tag (at least 10), one in 20 an author, the rest
/// books: at 1,000,000, 1,000 tags, 50,000 authors and 949,000 books with about 1.9 million
/// book–tag links. A book's author is spread over the authors (book `j` is by author
/// `j % authors`), so that walking an author's books reads rows all over the table.
public struct LibraryData: Sendable {
    public struct Author: Sendable, Equatable {
        public var id: Int
        public var name: String
    }

    public struct Book: Sendable, Equatable {
        public var id: Int
        public var title: String
        public var pages: Int
        public var published: Date
        public var authorID: Int
        public var tagIDs: [Int]
        /// The ebook's size, for an ebook; nil for a printed book.
        public var megabytes: Double?
    }

    public struct Tag: Sendable, Equatable {
        public var id: Int
        public var name: String
    }

    public var authors: [Author]
    public var books: [Book]
    public var tags: [Tag]

    /// The data set of about `objects` objects, the same on every call.
    public static func generate(objects: Int) -> LibraryData {
        let tagCount = max(10, objects / 1_000)
        let authorCount = max(1, objects / 20)
        let bookCount = max(1, objects - tagCount - authorCount)
        let tags = (0..<tagCount).map { Tag(id: $0, name: "tag \($0)") }
        let authors = (0..<authorCount).map { Author(id: $0, name: "Author \($0)") }
        let books = (0..<bookCount).map { index in
            // Titles in an order unlike the books' numbers, so that a page sorted by title
            // reads books from all over the table.
            let first = index % tagCount, second = (index &* 7 &+ 1) % tagCount
            return Book(
                id: index,
                title: "Title \(String(index &* 7_919 % bookCount, radix: 36))",
                pages: pages(ofBook: index),
                published: Date(timeIntervalSince1970: 1_500_000_000 + Double(index) * 3_600),
                authorID: index % authorCount,
                tagIDs: first == second ? [first] : [first, second],
                megabytes: index % 4 == 3 ? Double(index % 50) / 10 + 0.5 : nil
            )
        }
        return LibraryData(authors: authors, books: books, tags: tags)
    }

    /// Pages of book `index`: 50 to 1,049, one book in 100 under ``changedPagesBound``.
    static func pages(ofBook index: Int) -> Int { 50 + (index &* 31) % 1_000 }

    /// The books the "change 1%" workload changes are those with fewer pages than this.
    public static let changedPagesBound = 60

    /// How many books a page of the "page of books" workload holds, and how many pages it reads.
    public static let pageSize = 50
    public static let pageCount = 10

    /// The offsets of the pages read, spread over the books sorted by title.
    public static func pageOffsets(bookCount: Int) -> [Int] {
        (0..<pageCount).map { $0 * max(0, bookCount - pageSize) / max(1, pageCount - 1) }
    }

    /// A changed book's new title: a second edition's, or back to the first's, so that a
    /// store changed by every iteration keeps titles of one length.
    public static func changedTitle(_ title: String) -> String {
        title.hasSuffix(edition) ? String(title.dropLast(edition.count)) : title + edition
    }

    private static let edition = " (2nd ed.)"

    /// What a page of books gives back, the same for every peer: the sum of their pages and
    /// of the lengths of their authors' names.
    public struct PageSummary: Equatable, Sendable {
        public var books = 0
        public var pages = 0
        public var authorNameLength = 0
        public init() {}

        public mutating func add(pages: Int, authorName: String) {
            books += 1
            self.pages += pages
            authorNameLength += authorName.utf8.count
        }
    }
}
