import NIOCore
import NIOPosix

/// Swift concurrency's jobs run on the service's own NIO event loops (process-wide).
///
/// The server's sockets are served by `MultiThreadedEventLoopGroup.singleton`, and Hummingbird runs
/// each request's handler as a task. By default a task runs on the Swift runtime's global pool, so
/// every request crosses threads twice: from the event loop that read it to a pool thread, and back
/// to the event loop that writes the answer. After `adopt()`, the global executor is that event loop
/// group (NIO's `NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor`),
/// so a handler runs on an event loop thread and its answer is written without a wake-up of another
/// thread. Long work of the service keeps threads of its own (`LowPriorityThread`: retraining, the
/// background folds).
///
/// It is for a process that serves and does nothing else: call it once, at the start of `serve`,
/// before the service starts; never in a process that runs other work (tests, the library).
///
/// ```swift
/// ServiceExecutor.adopt()
/// try await ProactiveService.serve(storage: storage, settings: settings, logger: logger)
/// ```
public enum ServiceExecutor {
    /// Installs the event loops as the global executor; false when the runtime offers no hook for
    /// it (the jobs then stay on the global pool). A second call in one process is a
    /// programming error (NIO stops the process).
    @discardableResult
    public static func adopt() -> Bool {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }
}
