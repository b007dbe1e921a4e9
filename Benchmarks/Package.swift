// swift-tools-version: 6.1
import PackageDescription

// The benchmark suite lives in its own package so the main package never
// depends on ordo-one/benchmark (its build and tests stay fast).
//
//   swift package --package-path Benchmarks --scratch-path Benchmarks/.build benchmark
//   scripts/benchmarks.sh          # suite + Python peer, rewrites BENCHMARKS.md
let package = Package(
    name: "ProactiveBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        // Named so the dependency does not take the checkout directory's name.
        .package(name: "Proactive", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // MARK: Shared workloads (deterministic, seeded)
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "Proactive", package: "Proactive"), .product(name: "ProactiveLab", package: "Proactive")],
            path: "Sources/BenchmarkSupport"
        ),

        // MARK: Engine side of the Python comparison (release-built, one JSON report)
        .executableTarget(
            name: "engine-peer",
            dependencies: ["BenchmarkSupport", .product(name: "Proactive", package: "Proactive")],
            path: "Sources/EnginePeer"
        ),

        // MARK: Benchmark suites (Benchmarks/<Name>/<Name>.swift)
        .executableTarget(
            name: "Ranking",
            dependencies: ["BenchmarkSupport", .product(name: "Proactive", package: "Proactive"), .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/Ranking",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Learning",
            dependencies: ["BenchmarkSupport", .product(name: "Proactive", package: "Proactive"), .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/Learning",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Live",
            dependencies: [
                "BenchmarkSupport", .product(name: "Proactive", package: "Proactive"), .product(name: "ProactiveLab", package: "Proactive"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/Live",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Store",
            dependencies: [
                "BenchmarkSupport", .product(name: "Proactive", package: "Proactive"), .product(name: "ProactiveLab", package: "Proactive"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/Store",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
