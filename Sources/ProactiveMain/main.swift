import Foundation
import ProactiveCLI

// The `proactive` executable: the commands live in the ProactiveCLI library (tested in process).
// Every command runs BLAS on one thread (latency paths, and training parallel over users), and
// OpenBLAS, opened at its first use (Sources/CBLAS), sizes its worker threads from this variable
// when it loads: unless the environment sets it, no idle worker is ever started.
setenv("OPENBLAS_NUM_THREADS", "1", 0)
let status = await Proactive.run(arguments: Array(CommandLine.arguments.dropFirst()))
// Output that could not be written (a full disk, `> /dev/full`) fails the run.
if fflush(nil) != 0 {
    FileHandle.standardError.write(Data("Error: cannot write to standard output: \(String(cString: strerror(errno)))\n".utf8))
    exit(1)
}
exit(status)
