import CStartup
import Foundation
import ProactiveCLI

// The `proactive` executable: the commands live in the ProactiveCLI library (tested in process).
// First, OpenBLAS's idle workers stop (BLAS on one thread) unless OPENBLAS_NUM_THREADS is set.
_ = cstartup_quiet_openblas()
let status = await Proactive.run(arguments: Array(CommandLine.arguments.dropFirst()))
// Output that could not be written (a full disk, `> /dev/full`) fails the run.
if fflush(nil) != 0 {
    FileHandle.standardError.write(Data("Error: cannot write to standard output: \(String(cString: strerror(errno)))\n".utf8))
    exit(1)
}
exit(status)
