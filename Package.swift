// swift-tools-version:6.0
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "gqlgate",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "gqlgate", targets: ["gqlgate"]),
        /// Build a gateway of your own: `import GQLGate` (the stage model, the configuration, `Gateway`).
        .library(name: "GQLGate", targets: ["GQLGate"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/GraphQLSwift/GraphQL", from: "4.3.0"),
        .package(url: "https://github.com/GraphQLSwift/Graphiti", from: "3.1.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        // MARK: - C libraries and shims
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]),
        .systemLibrary(name: "CWslay", providers: [.apt(["libwslay-dev"]), .brew(["wslay"])]),
        .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"]), .brew(["hiredis"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .systemLibrary(name: "CBrotli", pkgConfig: "libbrotlienc", providers: [.apt(["libbrotli-dev"]), .brew(["brotli"])]),
        // SHA-256 and SHA-1: nettle, which GnuTLS (and so libmicrohttpd) already brings.
        .systemLibrary(name: "CNettle", pkgConfig: "nettle", providers: [.apt(["nettle-dev"]), .brew(["nettle"])]),
        // C the Swift code cannot call directly (varargs, unions, macros), one target per
        // library, each depended on only by the wrapper of that library.
        .target(name: "CCurlShims", dependencies: ["CCurl"]),
        // GnuTLS (Debian's libmicrohttpd links it): the certificate each handshake gets, client certificate checks.
        .target(name: "CMicroHTTPDShims", dependencies: ["CMicroHTTPD"], linkerSettings: [.linkedLibrary("gnutls")]),
        .target(name: "CLinuxShims"),
        .target(name: "CHiredisShims", dependencies: ["CHiredis"]),
        // GnuTLS for the Redis client's TLS sessions on sockets of its own.
        .target(name: "CGnuTLSShims", linkerSettings: [.linkedLibrary("gnutls")]),

        // MARK: - Wrappers (the only Swift code that imports C)
        .target(name: "GQLGateCore", dependencies: ["CNettle"], swiftSettings: swiftSettings),
        .target(name: "GQLGateCompression", dependencies: ["GQLGateCore", "CZlib", "CBrotli"], swiftSettings: swiftSettings),
        .target(name: "GQLGateEventLoop", dependencies: ["GQLGateCore", "CLinuxShims"], swiftSettings: swiftSettings),
        .target(
            name: "GQLGateHTTPServer",
            dependencies: [
                "GQLGateCore", "CMicroHTTPD", "CMicroHTTPDShims", "CLinuxShims",
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GQLGateWebSocket",
            dependencies: [
                "GQLGateCore", "GQLGateEventLoop", "CWslay",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GQLGateHTTPClient",
            dependencies: ["GQLGateCore", "GQLGateEventLoop", "CCurl", "CCurlShims"],
            swiftSettings: swiftSettings
        ),

        // MARK: - GraphQL pipeline
        .target(
            name: "GQLGatePipeline",
            dependencies: [
                "GQLGateCore",
                .product(name: "GraphQL", package: "GraphQL"),
            ],
            swiftSettings: swiftSettings
        ),
        // The built-in stages: no C, no HTTP client, no event loop (retry reads UpstreamFailure,
        // the gateway hands in its loops' timers and executor).
        .target(
            name: "GQLGateExchanges",
            dependencies: [
                "GQLGateCore", "GQLGatePipeline",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "GraphQL", package: "GraphQL"),
            ],
            swiftSettings: swiftSettings
        ),
        // The end of the chain: queries and mutations over HTTP (libcurl), and the upstream
        // WebSocket handshake the gateway's subscriptions are carried on. No stage, no metrics.
        .target(
            name: "GQLGateTransports",
            dependencies: ["GQLGateCore", "GQLGateEventLoop", "GQLGatePipeline", "GQLGateHTTPClient", "GQLGateWebSocket"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GQLGateRedis",
            dependencies: [
                "GQLGateCore", "GQLGateEventLoop", "GQLGatePipeline", "GQLGateExchanges", "CHiredis", "CHiredisShims", "CGnuTLSShims",
                "CZlib",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GQLGateSubscriptions",
            dependencies: ["GQLGateCore", "GQLGatePipeline"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GQLGateConfig",
            dependencies: ["GQLGateCore", .product(name: "Yams", package: "Yams")],
            swiftSettings: swiftSettings
        ),

        // MARK: - Observability
        .target(
            name: "GQLGateMetrics",
            dependencies: [
                "GQLGateCore", "GQLGatePipeline",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
        // Spans, W3C trace context and their OTLP encoding: no C, no HTTP client.
        .target(name: "GQLGateTracing", dependencies: ["GQLGateCore"], swiftSettings: swiftSettings),
        .target(
            name: "GQLGateLogging",
            dependencies: ["GQLGateCore", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),

        // MARK: - Application
        .target(
            name: "GQLGate",
            dependencies: [
                "GQLGateCore", "GQLGateEventLoop", "GQLGateHTTPServer", "GQLGateHTTPClient",
                "GQLGatePipeline", "GQLGateExchanges", "GQLGateTransports", "GQLGateConfig", "GQLGateMetrics", "GQLGateLogging",
                "GQLGateSubscriptions", "GQLGateWebSocket", "GQLGateRedis", "GQLGateTracing", "GQLGateCompression",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GQLGateDemo",
            dependencies: [
                "GQLGateCore", "GQLGateEventLoop", "GQLGateHTTPServer", "GQLGateWebSocket", "GQLGatePipeline", "GQLGateSubscriptions",
                .product(name: "Graphiti", package: "Graphiti"),
                .product(name: "GraphQL", package: "GraphQL"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "gqlgate",
            dependencies: [
                "GQLGate", "GQLGateConfig", "GQLGateDemo", "GQLGateLogging",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings,
            // mimalloc replaces glibc's malloc for the whole process (every library's
            // allocations included): see docs/architecture.md, "Design notes". Only the executable
            // links it: a program built on the library product keeps its own allocator.
            linkerSettings: [.linkedLibrary("mimalloc", .when(platforms: [.linux]))]
        ),

        // MARK: - Tests
        .testTarget(name: "GQLGateCoreTests", dependencies: ["GQLGateCore"], swiftSettings: swiftSettings),
        .testTarget(name: "GQLGateCompressionTests", dependencies: ["GQLGateCompression", "GQLGateCore", "CZlib"], swiftSettings: swiftSettings),
        .testTarget(name: "GQLGateEventLoopTests", dependencies: ["GQLGateCore", "GQLGateEventLoop"], swiftSettings: swiftSettings),
        .testTarget(name: "GQLGateHTTPServerTests", dependencies: ["GQLGateHTTPServer", "GQLGateHTTPClient", "GQLGateEventLoop"], swiftSettings: swiftSettings),
        .testTarget(
            name: "GQLGateWebSocketTests",
            dependencies: ["GQLGateWebSocket", "GQLGateHTTPServer", "GQLGateHTTPClient", "GQLGateTransports", "GQLGateEventLoop"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "GQLGateHTTPClientTests", dependencies: ["GQLGateHTTPClient", "GQLGateEventLoop", "GQLGateCompression"], swiftSettings: swiftSettings),
        .testTarget(
            name: "GQLGatePipelineTests", dependencies: ["GQLGatePipeline", .product(name: "GraphQL", package: "GraphQL")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "GQLGateRedisTests",
            dependencies: ["GQLGateRedis", "GQLGateCore", "GQLGateExchanges", "GQLGatePipeline", "GQLGateEventLoop", "CHiredis",
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "GQLGateSubscriptionsTests", dependencies: ["GQLGateSubscriptions", "GQLGatePipeline"], swiftSettings: swiftSettings),
        .testTarget(
            name: "GQLGateExchangesTests", dependencies: ["GQLGateExchanges", "GQLGatePipeline", .product(name: "GraphQL", package: "GraphQL")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "GQLGateTransportsTests",
            dependencies: ["GQLGateTransports", "GQLGateHTTPClient", "GQLGateEventLoop", "GQLGatePipeline", "GQLGateCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GQLGateConfigTests",
            dependencies: ["GQLGateConfig"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "GQLGateTests", dependencies: ["GQLGate"], swiftSettings: swiftSettings),
        .testTarget(name: "GQLGateMetricsTests", dependencies: ["GQLGateMetrics"], swiftSettings: swiftSettings),
        .testTarget(name: "GQLGateTracingTests", dependencies: ["GQLGateTracing", "GQLGateCore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "GQLGateLoggingTests",
            dependencies: ["GQLGateLogging", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GQLGateDemoTests",
            dependencies: [
                "GQLGateDemo", "GQLGateCore", "GQLGateEventLoop", "GQLGateHTTPClient", "GQLGateTransports", "GQLGateWebSocket",
                "GQLGatePipeline",
                .product(name: "GraphQL", package: "GraphQL"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)

// MARK: - Fuzzers
// The floor of the stack under the pipeline, declared only when GQLGATE_BENCH is set:
// `make bench-instructions` builds it for its SB row (docs/benchmarks.md).
if Context.environment["GQLGATE_BENCH"] != nil {
    package.targets.append(.executableTarget(
        name: "BenchBridgeProxy", dependencies: ["GQLGateCore", "GQLGateEventLoop", "GQLGateHTTPClient", "GQLGateHTTPServer", "GQLGatePipeline"],
        path: "Bench/BridgeProxy", swiftSettings: swiftSettings,
        // The allocator gqlgate's executable links, so that SB's floor is the same stack's.
        linkerSettings: [.linkedLibrary("mimalloc", .when(platforms: [.linux]))]))
}

// libFuzzer targets, declared only when GQLGATE_FUZZ is set: `make fuzz` builds
// them with `-sanitize=fuzzer,address`, so an ordinary build never sees them.
// See docs/fuzzing.md.
if Context.environment["GQLGATE_FUZZ"] != nil {
    func fuzzer(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
        .executableTarget(
            name: "Fuzz\(name)", dependencies: dependencies + ["FuzzerSupport"], path: "Fuzz/\(name)", swiftSettings: swiftSettings)
    }
    package.targets += [
        .target(name: "CFuzzerDriver", path: "Fuzz/CFuzzerDriver"),
        .target(name: "FuzzerSupport", dependencies: ["CFuzzerDriver"], path: "Fuzz/FuzzerSupport", swiftSettings: swiftSettings),
        fuzzer("RequestDecoder", ["GQLGatePipeline", "GQLGateCore"]),
        fuzzer("DocumentAnalysis", ["GQLGateExchanges", "GQLGatePipeline", .product(name: "GraphQL", package: "GraphQL")]),
        fuzzer("AnswerInspection", ["GQLGateExchanges", "GQLGatePipeline", "GQLGateCore"]),
        fuzzer("ClientProtocols", ["GQLGateSubscriptions", "GQLGatePipeline", "GQLGateCore"]),
        fuzzer("WebSocketFrames", ["GQLGateWebSocket", "GQLGateEventLoop", "GQLGateCore"]),
        fuzzer("ConfigLoading", ["GQLGateConfig"]),
        fuzzer("RedisReplies", ["GQLGateRedis", "GQLGateCore"]),
        fuzzer("Introspection", ["GQLGateExchanges", "GQLGatePipeline", "GQLGateCore"]),
        fuzzer("MultipartParts", ["GQLGateHTTPClient"]),
    ]
}
