/// The gqlgate release this build is.
package enum GQLGateVersion {
    package static let current = "0.1.0"
}
