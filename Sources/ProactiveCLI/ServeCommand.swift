import ArgumentParser
import Foundation
import Logging
import ProactiveEngine
import ProactiveService

// MARK: - proactive serve

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the engine as a local HTTP/JSON service (openapi.yaml describes the API).",
        discussion: """
            Listens on a Unix domain socket (mode 0600) by default: --socket PATH, else \
            $XDG_RUNTIME_DIR/proactive/proactive.sock, else (XDG_RUNTIME_DIR unset, as in a root \
            shell or a container) /tmp/proactive-UID/proactive.sock; the "listening" log line gives \
            the path and a curl line to try. \
            --port listens on loopback TCP instead (--host, default 127.0.0.1); any other address \
            is refused unless --listen-any.

            Every route but GET /healthz and GET /readyz needs Authorization: Bearer CREDENTIAL. The first serve \
            of a store file writes the owner's credential to STORE.owner-credential (mode 0600). \
            A PostgreSQL database keeps only credentials' hashes: the first serve of a database \
            writes the owner's credential to --owner-credential-file PATH (mode 0600, required \
            until the database has an owner credential; a file there already holding a \
            credential is adopted); every later instance on the database uses the same one. \
            `proactive apps add BUNDLE_ID` mints an app credential, which acts as --as-app does; \
            `apps revoke` takes effect on every instance's next request. \
            Users' live models stay in memory within --memory-budget (least recently used saved \
            and evicted) and are saved every --save-every seconds and on SIGTERM or SIGINT, \
            after in-flight requests finish, within --shutdown-save seconds: donations not \
            learned yet are folded in first for at most a quarter of a second, and what is left is \
            stored and caught up when next read; then the exit status is 0. Every --retrain-every \
            hours every user is trained afresh as `proactive train` does, at the lowest priority, and \
            the held models are replaced by the trained ones: an answer comes from a model trained at \
            most that long ago that learned every donation since online, not from one whose weights \
            and population prior are as old as the service (with several instances on one database, \
            give it to one of them). The retention \
            window is applied after donations at once when one is already past it, otherwise \
            at most once a minute.

            Example:
              proactive serve --store ~/p.sqlite
              SOCK="${XDG_RUNTIME_DIR:+$XDG_RUNTIME_DIR/proactive}"
              SOCK="${SOCK:-/tmp/proactive-$(id -u)}/proactive.sock"
              curl --unix-socket "$SOCK" \\
                -H "Authorization: Bearer $(cat ~/p.sqlite.owner-credential)" \\
                -d '{"user":"me","k":4}' http://localhost/v1/suggestions
              proactive serve --port 8080 --owner-credential-file ~/.proactive-owner \\
                --database 'postgres://proactive@/proactive?host=/run/postgresql'
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("The Unix domain socket to listen on.", valueName: "path"))
    var socket: String?

    @Option(help: "Listen on this TCP port instead of a socket (loopback only unless --listen-any).")
    var port: Int?

    @Option(help: "The address for --port.")
    var host = "127.0.0.1"

    @Flag(help: "Allow --host to be an address other than loopback.")
    var listenAny = false

    @Option(help: ArgumentHelp("""
        Where to write the owner's credential (mode 0600) when the database has none yet; \
        a store file keeps it in STORE.owner-credential.
        """, valueName: "path"))
    var ownerCredentialFile: String?

    @Option(help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel = "info"

    @Option(help: ArgumentHelp("Largest request body, in bytes (K, M, G suffixes).", valueName: "size"))
    var maxBody = "16M"

    @Option(help: ArgumentHelp("Memory for live models, in bytes (K, M, G suffixes).", valueName: "size"))
    var memoryBudget = "512M"

    @Option(help: "Seconds between saves of the held models.")
    var saveEvery = 30

    @Option(help: ArgumentHelp("""
        Seconds that saving held models may take on shutdown (SIGTERM, SIGINT); models not saved \
        by then catch up from the stored donations when next read.
        """, valueName: "seconds"))
    var shutdownSave = 20

    @Option(help: ArgumentHelp("""
        Save transactions written at once on shutdown, each encoding its models on a core of its \
        own (default: the machine's cores, at most 4).
        """, valueName: "count"))
    var shutdownWorkers: Int?

    @Option(help: ArgumentHelp("""
        Hours between trainings of every user afresh (the population prior, weights and guard \
        refitted, as `proactive train` does); 0: never.
        """, valueName: "hours"))
    var retrainEvery = 24.0

    @Option(help: ArgumentHelp("""
        Seconds a connection may wait without sending a complete request head or the next part of \
        a body before it is closed (idle, half-sent or stalled connections cannot pin the server).
        """, valueName: "seconds"))
    var idleTimeout = 10

    @Flag(help: ArgumentHelp("""
        Run request handlers on Swift's global thread pool instead of on the event loops that read \
        and write the connections (there, a request's handler runs on the thread that read it).
        """))
    var globalPool = false

    func validate() throws {
        if storeOptions.asApp != nil { throw ValidationError("serve acts for every credential; --as-app does not apply") }
        if socket != nil, port != nil { throw ValidationError("give --socket or --port, not both") }
        if let port, !(1...65535).contains(port) { throw ValidationError("--port must be 1 to 65535, found \(port)") }
        if port != nil, !listenAny, !Listening.isLoopback(host) {
            throw ValidationError("--host \(host) is not a loopback address: the service has no TLS; add --listen-any to serve it anyway")
        }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level: unknown level \"\(logLevel)\"") }
        guard saveEvery >= 1 else { throw ValidationError("--save-every must be at least 1 second") }
        guard shutdownSave >= 0 else { throw ValidationError("--shutdown-save must be 0 or more seconds") }
        if let shutdownWorkers, !(1...64).contains(shutdownWorkers) {
            throw ValidationError("--shutdown-workers must be 1 to 64, found \(shutdownWorkers)")
        }
        guard retrainEvery >= 0, retrainEvery <= 8760 else {
            throw ValidationError("--retrain-every must be 0 (never) to 8760 hours, found \(retrainEvery)")
        }
        guard idleTimeout >= 1 else { throw ValidationError("--idle-timeout must be at least 1 second") }
        _ = try Self.size(maxBody, option: "--max-body")
        _ = try Self.size(memoryBudget, option: "--memory-budget")
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel)!
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "proactive.serve")
        umask(0o077)  // the socket, credential files and the store are the owner's alone
        let storage = try storeOptions.openStorage()
        var settings = ServeSettings(address: try port.map { .tcp(host: host, port: $0) } ?? .socket(path: try socket ?? Listening.defaultSocketPath()))
        settings.service.maxBody = try Self.size(maxBody, option: "--max-body")
        settings.service.memoryBudget = try Self.size(memoryBudget, option: "--memory-budget")
        settings.saveEvery = .seconds(saveEvery)
        settings.shutdownSave = .seconds(shutdownSave)
        if let shutdownWorkers { settings.shutdownWorkers = shutdownWorkers }
        settings.retrainEvery = retrainEvery > 0 ? .milliseconds(Int64(retrainEvery * 3_600_000)) : nil
        settings.service.idleTimeout = .seconds(idleTimeout)
        settings.ownerCredentialFile = ownerCredentialFile
        if !globalPool, !ServiceExecutor.adopt() {
            logger.warning("this Swift runtime offers no hook for the event loops to run tasks: handlers run on the global pool")
        }
        try await ProactiveService.serve(storage: storage, settings: settings, logger: logger)
    }

    /// `16M` -> 16,777,216.
    static func size(_ text: String, option: String) throws -> Int {
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = Substring(text)
        var unit = 1
        if let last = text.last?.uppercased().first, let multiplier = units[last] {
            unit = multiplier
            digits = digits.dropLast()
        }
        guard let value = Int(digits), value > 0, value <= Int.max / unit else {
            throw ValidationError("\(option) wants a size such as 16M, found \"\(text)\"")
        }
        return value * unit
    }
}

// MARK: - proactive apps

struct AppsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "Manage the service's app credentials (proactive serve).",
        discussion: """
            An app credential acts as --as-app BUNDLE_ID does: it reads and changes only that app's \
            data. Credentials are kept hashed (SHA-256): in STORE.credentials (mode 0600) for a \
            store file, in the database's app_credential table for a PostgreSQL store; `add` \
            prints the credential once. Every running service sees changes on its next request.
            """,
        subcommands: [Add.self, List.self, Revoke.self, ReplaceOwner.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Mint a credential for an app and print it (once).")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The app's bundle identifier.") var app: String
        @Flag(help: "Revoke the app's current credential and mint a new one.") var replace = false

        func run() throws {
            try storeOptions.access.requireAdministrator(to: "manage credentials")
            umask(0o077)
            print(try storeOptions.credentials.mintApp(app, replacing: replace))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the apps that have a credential.")
        @OptionGroup var storeOptions: StoreOptions

        func run() throws {
            try storeOptions.access.requireAdministrator(to: "manage credentials")
            for entry in try storeOptions.credentials.apps() {
                print("\(entry.app)  created \(DateFormatting.utc(entry.created))")
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke an app's credential.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The app's bundle identifier.") var app: String

        func run() throws {
            try storeOptions.access.requireAdministrator(to: "manage credentials")
            umask(0o077)
            guard try storeOptions.credentials.revokeApp(app) else {
                throw CommandFailure(description: "\(app) has no credential")
            }
            print("revoked \(app)")
        }
    }

    struct ReplaceOwner: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "replace-owner",
            abstract: "Mint a new owner credential and print it (once); the old one is refused from then on.",
            discussion: """
                A store file's is written to STORE.owner-credential (mode 0600); a database keeps only \
                its hash, so the printed credential is the only copy. Every running service refuses \
                the old one on its next request.
                """)
        @OptionGroup var storeOptions: StoreOptions

        func run() throws {
            try storeOptions.access.requireAdministrator(to: "manage credentials")
            umask(0o077)
            let credential = ServiceCredential.mint()
            try storeOptions.credentials.replaceOwner(credential, at: Date())
            print(credential)
        }
    }
}
