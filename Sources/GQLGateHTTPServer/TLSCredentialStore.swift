import CMicroHTTPDShims

/// The certificate and key each new TLS handshake gets, and the CAs client
/// certificates are checked against: replaced while the server runs (a
/// renewed certificate) without touching open connections, which keep what
/// their handshake got until they close.
///
/// `@unchecked Sendable`: the C store it wraps locks around every read and swap.
package final class TLSCredentialStore: @unchecked Sendable {
    /// What the current certificate says of itself.
    package struct Summary: Sendable, Equatable {
        /// Its subject, RFC 4514 (`CN=api.example.com`).
        package var subject: String
        /// Its serial number, lower-case hex.
        package var serial: String
        /// The end of its validity, seconds since 1970.
        package var notAfter: Int64
    }

    let store: OpaquePointer
    /// Whether every handshake asks the client for a certificate, which requests must
    /// carry, signed by the client CAs (fixed when the store is made).
    package let requiresClientCertificates: Bool

    /// Loads `credentials`; throws when they cannot be used.
    package init(_ credentials: TLSCredentials) throws(TLSCredentialsError) {
        guard let store = gqlgate_tls_store_create(credentials.clientAuthorityPEM == nil ? 0 : 1) else {
            throw TLSCredentialsError(file: .certificate, message: "out of memory")
        }
        self.store = store
        requiresClientCertificates = credentials.clientAuthorityPEM != nil
        try replace(with: credentials)
    }

    deinit {
        gqlgate_tls_store_destroy(store)
    }

    /// Makes `credentials` the ones new handshakes use. The client CAs and the
    /// certificate with its key are taken apart, each when it loads: throws,
    /// keeping the previous one, when the client CA text holds no certificate,
    /// or the certificate or key cannot be read or do not match. The client
    /// CAs are left as they are when this store does not ask for client certificates.
    package func replace(with credentials: TLSCredentials) throws(TLSCredentialsError) {
        if requiresClientCertificates, let authority = credentials.clientAuthorityPEM {
            try Self.call { error, size in
                gqlgate_tls_store_set_client_authority(store, authority, authority.utf8.count, error, size) == 0 ? nil : .clientAuthority
            }
        }
        let certificate = credentials.certificatePEM, key = credentials.keyPEM
        try Self.call { error, size in
            let result = gqlgate_tls_store_set_keys(store, certificate, certificate.utf8.count, key, key.utf8.count, error, size)
            return result == 0 ? nil : result == -2 ? .key : .certificate
        }
    }

    /// The certificate new handshakes get.
    package var current: Summary? {
        var subject = [CChar](repeating: 0, count: 1024), serial = [CChar](repeating: 0, count: 132)
        var notAfter: Int64 = 0
        guard gqlgate_tls_store_describe(store, &subject, subject.count, &serial, serial.count, &notAfter) == 0 else { return nil }
        return Summary(subject: Self.text(subject), serial: Self.text(serial), notAfter: notAfter)
    }

    /// Runs `body`, which returns the file at fault after writing why into its buffer, or nil.
    private static func call(_ body: (UnsafeMutablePointer<CChar>, Int) -> TLSCredentialsError.File?) throws(TLSCredentialsError) {
        var error = [CChar](repeating: 0, count: 256)
        if let file = body(&error, error.count) { throw TLSCredentialsError(file: file, message: text(error)) }
    }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Why TLS credentials cannot be used.
package struct TLSCredentialsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which of the PEM texts cannot be used.
    package enum File: Sendable, Equatable {
        case certificate, key, clientAuthority
    }

    package var file: File
    package var message: String
    package var description: String { message }
}
