// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Proactive",
    platforms: [.macOS(.v14)],
    products: [
        .library(
            name: "Proactive",
            targets: ["LinearAlgebra", "ProactiveCore", "ProactiveStore", "ProactiveModels", "ProactiveRanking", "ProactiveEngine"]
        ),
        .executable(name: "proactive", targets: ["ProactiveMain"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // MARK: C libraries (one thin module each)
        .systemLibrary(
            name: "CBLAS",
            pkgConfig: "openblas",
            providers: [.apt(["libopenblas-dev"])]
        ),
        .systemLibrary(
            name: "CLAPACKE",
            providers: [.apt(["liblapacke-dev"])]
        ),

        // MARK: Numerics
        .target(name: "LinearAlgebra", dependencies: ["CBLAS", "CLAPACKE"]),

        // MARK: Engine
        .target(name: "ProactiveCore"),
        .target(
            name: "ProactiveStore",
            dependencies: [
                "ProactiveCore", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),  // raw binding on the import path
            ]
        ),
        .target(name: "ProactiveModels", dependencies: ["ProactiveCore", "LinearAlgebra"]),
        .target(name: "ProactiveRanking", dependencies: ["ProactiveCore", "ProactiveModels", "LinearAlgebra"]),

        .target(
            name: "ProactiveEngine",
            dependencies: ["ProactiveCore", "ProactiveStore", "ProactiveModels", "ProactiveRanking", "LinearAlgebra"]
        ),

        // MARK: Surfaces
        // The commands, as a library so ProactiveCLITests can run them in process.
        .target(
            name: "ProactiveCLI",
            dependencies: [
                "ProactiveCore", "ProactiveStore", "ProactiveModels", "ProactiveRanking", "ProactiveEngine", "LinearAlgebra",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The `proactive` executable: one file that runs the command line.
        .executableTarget(name: "ProactiveMain", dependencies: ["ProactiveCLI"]),

        // MARK: Tests
        .testTarget(name: "LinearAlgebraTests", dependencies: ["LinearAlgebra"]),
        .testTarget(name: "ProactiveCoreTests", dependencies: ["ProactiveCore"], exclude: ["HostileInput"]),
        .testTarget(
            name: "ProactiveStoreTests",
            dependencies: ["ProactiveStore", "ProactiveCore"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "ProactiveModelsTests", dependencies: ["ProactiveModels", "ProactiveCore", "LinearAlgebra"]),
        .testTarget(name: "ProactiveRankingTests", dependencies: ["ProactiveRanking", "ProactiveModels", "ProactiveCore"]),
        .testTarget(
            name: "ProactiveEngineTests",
            dependencies: ["ProactiveEngine", "ProactiveStore", "ProactiveModels", "ProactiveRanking", "ProactiveCore"]
        ),
        .testTarget(
            name: "ProactiveCLITests",
            dependencies: ["ProactiveCLI", "ProactiveEngine", "ProactiveStore", "ProactiveCore"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
