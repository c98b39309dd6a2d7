import Foundation
import StrataFileFormats

extension XMLNode {
    /// Parses a model file's or an XML store's document; a failure is a ``ModelFileError``
    /// naming `file` (`.unreadable` when it is too large, `.malformedXML` with the line when it
    /// is not well formed).
    static func parse(_ data: Data, file: URL, allowingDocumentType allowed: String? = nil) throws -> XMLNode {
        do {
            return try parse(data, allowingDocumentType: allowed)
        } catch {
            throw ModelFileError(error.kind == .tooLarge ? .unreadable : .malformedXML, file: file, line: error.line, error.description)
        }
    }
}
