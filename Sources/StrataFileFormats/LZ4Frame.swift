import CLZ4
import Foundation

/// LZ4 frames through liblz4's frame API: each frame records its content size and carries an
/// xxHash-32 checksum of its content, so that a reader knows how much to allocate before it
/// decompresses and can tell a damaged frame from a sound one.
package enum LZ4Frame {
    /// Why a frame could not be made or read.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// `bytes` as one LZ4 frame with content size and content checksum.
    package static func compress(_ bytes: UnsafeRawBufferPointer) throws -> [UInt8] {
        var preferences = LZ4F_preferences_t()
        preferences.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled
        preferences.frameInfo.contentSize = UInt64(bytes.count)
        preferences.frameInfo.blockSizeID = LZ4F_max4MB
        preferences.compressionLevel = 0
        let bound = LZ4F_compressFrameBound(bytes.count, &preferences)
        var output = [UInt8](repeating: 0, count: bound)
        let written = output.withUnsafeMutableBytes { destination in
            LZ4F_compressFrame(destination.baseAddress, bound, bytes.baseAddress, bytes.count, &preferences)
        }
        if LZ4F_isError(written) != 0 {
            throw Failure(description: "LZ4 compression failed: \(String(cString: LZ4F_getErrorName(written)))")
        }
        output.removeSubrange(written...)
        return output
    }

    /// The content of one frame that fills `frame` exactly. Refuses, before allocating, a frame
    /// whose declared content size is missing or above `maximumSize`; checks the checksum.
    package static func decompress(_ frame: UnsafeRawBufferPointer, maximumSize: Int) throws -> [UInt8] {
        var context: OpaquePointer?
        let created = LZ4F_createDecompressionContext(&context, UInt32(LZ4F_VERSION))
        guard LZ4F_isError(created) == 0, let context else {
            throw Failure(description: "cannot create an LZ4 decompression context")
        }
        defer { LZ4F_freeDecompressionContext(context) }

        var info = LZ4F_frameInfo_t()
        var headerSize = frame.count
        let hint = LZ4F_getFrameInfo(context, &info, frame.baseAddress, &headerSize)
        if LZ4F_isError(hint) != 0 {
            throw Failure(description: "not an LZ4 frame: \(String(cString: LZ4F_getErrorName(hint)))")
        }
        // Strata never writes an empty frame, and LZ4 uses 0 for "size not declared".
        guard info.contentSize > 0 else {
            throw Failure(description: "the LZ4 frame does not declare its content size")
        }
        guard info.contentSize <= UInt64(maximumSize) else {
            throw Failure(description: "the LZ4 frame claims \(info.contentSize) bytes, more than the limit of \(maximumSize)")
        }
        guard info.contentChecksumFlag == LZ4F_contentChecksumEnabled else {
            throw Failure(description: "the LZ4 frame carries no content checksum")
        }
        let size = Int(info.contentSize)
        var output = [UInt8](repeating: 0, count: size)
        var consumed = headerSize
        var produced = 0
        var remaining = hint
        while remaining != 0 {
            var sourceSize = frame.count - consumed
            var destinationSize = size - produced
            guard sourceSize > 0 else { throw Failure(description: "the LZ4 frame is truncated") }
            remaining = output.withUnsafeMutableBytes { destination in
                // Both buffers are non-empty here: size > 0 and sourceSize > 0.
                LZ4F_decompress(
                    context, destination.baseAddress.map { $0 + produced }, &destinationSize,
                    frame.baseAddress.map { $0 + consumed }, &sourceSize, nil)
            }
            if LZ4F_isError(remaining) != 0 {
                throw Failure(description: "the LZ4 frame is damaged: \(String(cString: LZ4F_getErrorName(remaining)))")
            }
            if sourceSize == 0 && destinationSize == 0 && remaining != 0 {
                throw Failure(description: "the LZ4 frame is truncated")
            }
            consumed += sourceSize
            produced += destinationSize
        }
        guard produced == size else {
            throw Failure(description: "the LZ4 frame holds \(produced) bytes, not the \(size) it declares")
        }
        guard consumed == frame.count else {
            throw Failure(description: "\(frame.count - consumed) bytes follow the end of the LZ4 frame")
        }
        return output
    }
}
