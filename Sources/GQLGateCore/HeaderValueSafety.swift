extension StringProtocol {
    /// Whether the text may be a header value as is: no CR, LF or NUL, which
    /// would end the field early or split it into two (header injection).
    public var isSafeHeaderValue: Bool {
        !utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }
}

extension HTTPHeaders {
    /// The name of the first field whose value is not safe to pass on, if any.
    public var firstFieldWithUnsafeValue: String? {
        first { !$0.value.isSafeHeaderValue }?.name
    }
}
