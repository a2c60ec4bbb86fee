/// The gqlgate release this build is.
public enum GQLGateVersion {
    public static let current = "0.1.0"
}
