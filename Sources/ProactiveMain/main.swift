import Foundation
import ProactiveCLI

// The `proactive` executable: the commands live in the ProactiveCLI library (tested in process).
exit(await Proactive.run(arguments: Array(CommandLine.arguments.dropFirst())))
