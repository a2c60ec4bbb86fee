extension StringProtocol {
    /// Whether the text may be a header value as is: no CR, LF or NUL, which
    /// would end the field early or split it into two (header injection).
    public var isSafeHeaderValue: Bool {
        func isUnsafe(_ byte: UInt8) -> Bool { byte == 0x0D || byte == 0x0A || byte == 0x00 }
        // A scan of the contiguous bytes, when the text has them, costs a fraction of the UTF-8 view's iterator.
        return utf8.withContiguousStorageIfAvailable { !$0.contains(where: isUnsafe) } ?? !utf8.contains(where: isUnsafe)
    }
}

extension HTTPHeaders {
    /// The name of the first field whose value is not safe to pass on, if any.
    public var firstFieldWithUnsafeValue: String? {
        withFields { fields in
            for index in fields.indices where !fields[index].value.isSafeHeaderValue { return fields[index].name }
            return nil
        }
    }
}
