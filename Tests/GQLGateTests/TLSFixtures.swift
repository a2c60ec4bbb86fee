#if canImport(Glibc)
import Glibc
#endif

/// Two self-signed P-256 certificates (`CN=fixture-one`, `CN=fixture-two`,
/// valid until 2126) and their keys, made with
/// `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 36500 -subj /CN=fixture-one`.
enum TLSFixtures {
    static let oneCertificate = """
-----BEGIN CERTIFICATE-----
MIIBgzCCASmgAwIBAgIUMGIMMme75pd6twceWDDKtu6PCqUwCgYIKoZIzj0EAwIw
FjEUMBIGA1UEAwwLZml4dHVyZS1vbmUwIBcNMjYxMTI2MDcxMTAwWhgPMjEyNjEx
MDIwNzExMDBaMBYxFDASBgNVBAMMC2ZpeHR1cmUtb25lMFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAEanq/cS4ELE960m9ZQX9COv+73Wb5DUFiK3CGK6xzDiHgB+4A
tgpxmvKnOYoL+yJZLu2P7Nna8lnF3LYjVtswaqNTMFEwHQYDVR0OBBYEFDzNTuzX
+g5MmcYNmH8oq/j7TyCUMB8GA1UdIwQYMBaAFDzNTuzX+g5MmcYNmH8oq/j7TyCU
MA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIgdgk0HMC1BTzzszTl
mmjXHP9JxG+ozuWcjV8BltN//jUCIQC4GZ4P3hb4cXgSzR8Uet8qpzTHnTJLkYeJ
hD9fH+Ze3Q==
-----END CERTIFICATE-----
"""
    static let oneKey = """
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgBxBPKQLZTIijaIlW
2xu9qYjkw2yw7E3V1VMwXvIlF3mhRANCAARqer9xLgQsT3rSb1lBf0I6/7vdZvkN
QWIrcIYrrHMOIeAH7gC2CnGa8qc5igv7Ilku7Y/s2dryWcXctiNW2zBq
-----END PRIVATE KEY-----
"""
    static let twoCertificate = """
-----BEGIN CERTIFICATE-----
MIIBhDCCASmgAwIBAgIUMSOIYZV+vY8JF2+4NArVnEGKTyowCgYIKoZIzj0EAwIw
FjEUMBIGA1UEAwwLZml4dHVyZS10d28wIBcNMjYxMTI2MDcxMTAwWhgPMjEyNjEx
MDIwNzExMDBaMBYxFDASBgNVBAMMC2ZpeHR1cmUtdHdvMFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAEtPeC+7cuSGzwRBoqjH76B5rkmdlVP85tUj2UfOtwK8Kkm3JI
z/MPnl9EqEEwFqI2m3U3LS7/I5ROLZp0E4LmpqNTMFEwHQYDVR0OBBYEFKdmJ7LF
fJh17gX96Qq+3tFwzQCYMB8GA1UdIwQYMBaAFKdmJ7LFfJh17gX96Qq+3tFwzQCY
MA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSQAwRgIhAN8z+s8PTk5Ogoqa
NU3YWsxoQ7eVHbHOWzjHNvV3CT2EAiEAy6W+BRMaF1KCMNz7bECCnH/Xzcoi3ko1
ARXxNJgTlrM=
-----END CERTIFICATE-----
"""
    static let twoKey = """
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQghSD/626oqiPWdMjj
mhnPCHE3i0Qe168LaHPcscgnbAihRANCAAS094L7ty5IbPBEGiqMfvoHmuSZ2VU/
zm1SPZR863ArwqSbckjP8w+eX0SoQTAWojabdTctLv8jlE4tmnQTguam
-----END PRIVATE KEY-----
"""
}

/// A directory under /tmp (files and links, no subdirectories), removed with them when the value goes.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/gqlgate-tls-XXXXXX".utf8CString)
        _ = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != ".", name != ".." { unlink(path + "/" + name) }
            }
            closedir(directory)
        }
        rmdir(path)
    }

    /// Writes `text` to `name` the way editors and cert-manager do: a new file renamed over the old one.
    @discardableResult
    func write(_ name: String, _ text: String) -> String {
        let target = path + "/" + name, next = target + ".next"
        let fd = open(next, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count - 1) }
        close(fd)
        rename(next, target)
        return target
    }

    /// Points the link `name` at `target` in one rename (a Kubernetes Secret volume's `..data` swap).
    func link(_ name: String, to target: String) {
        let staged = path + "/" + name + ".next"
        symlink(target, staged)
        rename(staged, path + "/" + name)
    }
}
