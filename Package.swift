// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Proactive",
    platforms: [.macOS(.v14)],
    products: [
        // What an app imports: the one module `Proactive` (the Engine, its values and errors; Sources/Proactive).
        .library(name: "Proactive", targets: ["Proactive"]),
        // The engine kept running (`Runtime`: held models, batched writes, caches dropped after each write), for an app or
        // service that answers many questions; its own product so that `Proactive` alone (the benchmarks) builds no
        // logging package. No lifecycle package: the service adapts `ModelKeeper` to ServiceLifecycle itself.
        .library(name: "ProactiveRuntime", targets: ["ProactiveRuntime"]),
        // Evaluation, simulated logs and log checks, for the benchmarks package; apps need only `Proactive`.
        .library(name: "ProactiveLab", targets: ["ProactiveLab"]),
        .executable(name: "proactive", targets: ["ProactiveMain"]),
    ],
    // What a library-only user resolves: every package below but GRDB and swift-crypto is named by the
    // command line, the service, the runtime or their tests alone, each reference under a trait. Both traits
    // are on by default (`swift build` here builds everything); an app that needs only `Proactive` depends
    // with `traits: []` and resolves GRDB and swift-crypto (with its swift-asn1), one that needs
    // `ProactiveRuntime` with `traits: ["Runtime"]` (those and swift-log). scripts/readme-library-check.sh
    // checks the set; docs/PERFORMANCE.md says what it saves.
    traits: [
        .trait(name: "Runtime", description: "The ProactiveRuntime product's dependency (swift-log)."),
        .trait(name: "Tools", description: "The proactive command, the service and their tests (argument parser, Hummingbird, "
               + "lifecycle, logging, metrics, Prometheus, NIO).", enabledTraits: ["Runtime"]),
        .default(enabledTraits: ["Tools"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The service (`proactive serve`): HTTP on Hummingbird, lifecycle, logs, metrics.
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
        // Already Hummingbird's; named here for the service tests' HTTP/1.1 client (NIOPosix, NIOHTTP1, HTTPTypes).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // SHA-256 of the service's credentials (already in Hummingbird's graph, through swift-nio-extras).
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        // `swift package generate-documentation --target Proactive` (Sources/Proactive/Proactive.docc); no target
        // uses it, so a package that depends on this one does not resolve it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: C libraries (one thin module each)
        // OpenBLAS's CBLAS and LAPACKE (Debian's libopenblas-dev, liblapacke-dev), opened at first use.
        .target(name: "CBLAS", dependencies: ["CDynamicLibrary"]),
        // dlopen at first use, shared by CBLAS and CLibPQ.
        .target(name: "CDynamicLibrary"),
        // PostgreSQL's client library (Debian's libpq-dev; TLS and authentication come with it), opened at first use.
        .target(name: "CLibPQ", dependencies: ["CDynamicLibrary"]),

        // MARK: Numerics
        .target(name: "LinearAlgebra", dependencies: ["CBLAS"]),
        // The scoring hot path's loops over every target (the profile's weighted columns, the softmax, the signals'
        // logarithms), eight or four lanes at a time where the CPU has AVX-512 or AVX2, the same bits on every path.
        .target(name: "CKernels"),

        // MARK: Engine
        .target(name: "ProactiveCore"),
        .target(
            name: "ProactiveStore",
            dependencies: [
                "ProactiveCore", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),  // raw binding on the import path
                .product(name: "Crypto", package: "swift-crypto"),  // credential hashes (SHA-256)
            ]
        ),
        .target(name: "ProactiveModels", dependencies: ["ProactiveCore", "LinearAlgebra", "CKernels"]),
        .target(name: "ProactiveRanking", dependencies: ["ProactiveCore", "ProactiveModels", "LinearAlgebra"]),

        // MARK: Lab (not in the `Proactive` product)
        // Evaluation, simulated logs and log checks: what `evaluate`, `simulate`, `split` and `lint` run; the routine
        // scenarios `routines` plays through an Engine (so ProactiveLab comes after the engine).
        .target(name: "ProactiveLab", dependencies: ["ProactiveCore", "ProactiveModels", "ProactiveEngine", "ProactiveStore"]),

        // Charts as SVG text (stack --svg, evaluate --svg); PNG only through rsvg-convert. Kept out of the ranking layer.
        .target(name: "ProactiveCharts", dependencies: ["ProactiveRanking", "ProactiveModels", "ProactiveLab"]),

        .target(
            name: "ProactiveEngine",
            dependencies: ["ProactiveCore", "ProactiveStore", "ProactiveModels", "ProactiveRanking", "LinearAlgebra"]
        ),

        // The same stores on PostgreSQL (through libpq), for several instances on one database; not in the `Proactive`
        // product, so an app and the benchmarks link no PostgreSQL client.
        .target(name: "ProactivePostgres", dependencies: ["ProactiveCore", "ProactiveStore", "CLibPQ"]),

        // `import Proactive`: the one module an app imports (it re-exports the engine and its value types).
        .target(name: "Proactive", dependencies: ["ProactiveCore", "ProactiveEngine", "ProactiveRanking", "ProactiveStore"]),

        // Live models kept in memory, writes batched, caches invalidated on change: for any app that embeds the
        // engine and answers many questions (the service is one). No HTTP here.
        .target(
            name: "ProactiveRuntime",
            dependencies: [
                "ProactiveCore", "ProactiveEngine", "ProactiveModels", "ProactiveRanking",  // the values its write methods take
                "ProactiveStore",  // value types, and the change-detection seam (`StoreChangeWatch`)
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Runtime"])),
            ]
        ),

        // MARK: Surfaces
        // The front ends reach the domain only through the Engine and the Runtime (the values they pass and print
        // are re-exported by ProactiveEngine); scripts/layering-check.py holds these lists and the imports to that.
        .target(
            name: "ProactiveService",
            dependencies: [
                "ProactiveCore", "ProactiveEngine", "ProactiveRuntime",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Tools"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Tools"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Tools"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Tools"])),
            ]
        ),
        // The commands, as a library so ProactiveCLITests can run them in process.
        .target(
            name: "ProactiveCLI",
            dependencies: [
                "ProactiveCore", "ProactiveEngine", "ProactiveRuntime", "ProactiveService", "ProactiveLab", "ProactiveCharts", "ProactivePostgres",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Tools"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"])),
            ]
        ),
        // The `proactive` executable: one file that runs the command line.
        .executableTarget(name: "ProactiveMain", dependencies: ["ProactiveCLI"]),
        // The executable's first step: OpenBLAS on one thread, its idle workers stopped, unless the environment says otherwise.

        // MARK: Tests
        .testTarget(name: "LinearAlgebraTests", dependencies: ["LinearAlgebra"]),
        .testTarget(name: "ProactiveCoreTests", dependencies: ["ProactiveCore"], exclude: ["HostileInput"]),
        // The `DonationStore` contract as checks any store's tests run (SQLite and in-memory here, PostgreSQL below).
        .target(name: "StoreConformance", dependencies: ["ProactiveStore", "ProactiveCore"], path: "Tests/StoreConformance"),
        .testTarget(
            name: "ProactiveStoreTests",
            dependencies: ["ProactiveStore", "ProactiveCore", "StoreConformance"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "ProactiveModelsTests", dependencies: ["ProactiveModels", "ProactiveCore", "LinearAlgebra", "ProactiveLab"]),
        .testTarget(name: "ProactiveRankingTests", dependencies: ["ProactiveRanking", "ProactiveModels", "ProactiveCore"]),
        .testTarget(
            name: "ProactiveChartsTests", dependencies: ["ProactiveCharts", "ProactiveRanking", "ProactiveModels", "ProactiveLab", "ProactiveCore"]
        ),
        .testTarget(
            name: "ProactiveEngineTests",
            dependencies: ["ProactiveEngine", "ProactiveStore", "ProactiveModels", "ProactiveRanking", "ProactiveCore", "ProactiveLab"]
        ),
        // The README's library example, compiled as printed (only `import Proactive`) and run.
        .testTarget(name: "ProactiveTests", dependencies: ["Proactive"]),
        .testTarget(
            name: "ProactiveCLITests",
            dependencies: ["ProactiveCLI", "ProactiveEngine", "ProactiveStore", "ProactiveCore"]
        ),
        // Against a real server: the private cluster scripts/test.sh starts (PROACTIVE_TEST_DATABASE_URL); skipped, saying why, without one.
        .testTarget(
            name: "ProactivePostgresTests",
            dependencies: ["ProactivePostgres", "ProactiveStore", "ProactiveCore", "StoreConformance", "ProactiveCLI", "ProactiveEngine", "ProactiveRuntime"]
        ),
        .testTarget(
            name: "ProactiveRuntimeTests",
            dependencies: [
                "ProactiveRuntime", "ProactiveEngine", "ProactiveStore", "ProactiveCore", "ProactiveRanking",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Tools"])),
            ]
        ),
        .testTarget(
            name: "ProactiveServiceTests",
            dependencies: [
                "ProactiveService", "ProactiveRuntime", "ProactiveEngine", "ProactiveStore", "ProactiveCore", "ProactiveModels", "ProactiveRanking", "ProactiveLab",
                "ProactivePostgres",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Tools"])),
                // The tests run the application live and talk to it with a client of their own (no HummingbirdTesting,
                // which would build AsyncHTTPClient and BoringSSL).
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["Tools"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Tools"])),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
