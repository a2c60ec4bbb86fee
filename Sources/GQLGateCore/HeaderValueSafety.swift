extension StringProtocol {
    /// Whether the text may be a header value as is: no CR, LF or NUL, which
    /// would end the field early or split it into two (header injection).
    package var isSafeHeaderValue: Bool {
        func isUnsafe(_ byte: UInt8) -> Bool { byte == 0x0D || byte == 0x0A || byte == 0x00 }
        // A scan of the contiguous bytes, when the text has them, costs a fraction of the UTF-8 view's iterator.
        return utf8.withContiguousStorageIfAvailable { !$0.contains(where: isUnsafe) } ?? !utf8.contains(where: isUnsafe)
    }

    /// Whether a client's `X-Request-Id` is kept (echoed and sent upstream):
    /// 1 to 200 visible ASCII characters. Anything else is replaced by a new id.
    package var isAcceptableRequestID: Bool {
        func check(_ bytes: some Collection<UInt8>) -> Bool {
            (1...200).contains(bytes.count) && bytes.allSatisfy { $0 >= 0x21 && $0 <= 0x7E }
        }
        return utf8.withContiguousStorageIfAvailable(check) ?? check(utf8)
    }
}

extension HTTPHeaders {
    /// The name of the first field a gateway refuses to take: a CR, LF or NUL
    /// in any value, or another control character but tab (0x01–0x1F, 0x7F)
    /// in the value of a field that `isPassedOn` says goes upstream.
    /// One scan of each value; `isPassedOn` is asked only about values with a control character.
    package func firstRefusedField(isPassedOn: (String) -> Bool) -> String? {
        withFields { fields in
            for index in fields.indices {
                switch Self.controlCharacters(in: fields[index].value) {
                case .none: continue
                case .breaksField: return fields[index].name
                case .other: if isPassedOn(fields[index].name) { return fields[index].name }
                }
            }
            return nil
        }
    }

    private enum ControlCharacters {
        case none
        /// CR, LF or NUL.
        case breaksField
        /// Others but tab.
        case other
    }

    private static func controlCharacters(in value: String) -> ControlCharacters {
        func scan(_ bytes: some Collection<UInt8>) -> ControlCharacters {
            var found = ControlCharacters.none
            for byte in bytes where byte < 0x20 || byte == 0x7F {
                if byte == 0x0D || byte == 0x0A || byte == 0x00 { return .breaksField }
                if byte != 0x09 { found = .other }
            }
            return found
        }
        return value.utf8.withContiguousStorageIfAvailable(scan) ?? scan(value.utf8)
    }
}
