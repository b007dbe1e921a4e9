import Foundation
import ProactiveCore
import Testing

extension CommandTests {
    /// `proactive routines`: one scenario as JSON with every check judged; an unknown name is refused with the list.
    @Suite("proactive routines")
    struct RoutinesCommandTests {
        @Test func oneScenarioAsJSON() async throws {
            let run = await proactive(["routines", "--scenario", "two-users", "--json"])
            #expect(run.status == 0, "\(run)")
            guard case let .array(scenarios) = try run.json(), scenarios.count == 1, case let .object(fields) = scenarios[0] else {
                Issue.record("not one scenario object: \(run)")
                return
            }
            let names = fields.map(\.0)
            #expect(["name", "covers", "why", "passed", "checks_passed", "checks_total", "checks"].allSatisfy(names.contains))
            #expect(fields.first { $0.0 == "name" }?.1 == .string("two-users"))
            #expect(fields.first { $0.0 == "checks_total" }?.1 == .number(2, integer: 2))
        }

        @Test func tableAndUnknownScenario() async throws {
            let table = await proactive(["routines", "--scenario", "dst-los-angeles"])
            #expect(table.status == 0, "\(table)")
            #expect(table.lines.first?.hasPrefix("scenario") == true)
            #expect(table.lines.contains { $0.hasPrefix("dst-los-angeles") && $0.contains("DST change") })
            let unknown = await proactive(["routines", "--scenario", "no-such-routine"])
            #expect(unknown.status != 0)
            #expect(unknown.error.contains("saturday-after-weather"))
        }
    }
}
