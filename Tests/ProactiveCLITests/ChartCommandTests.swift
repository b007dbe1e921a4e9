import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import ProactiveCore
import Testing

/// An SVG document read back: each element with its classes, its text and its children, in document order.
final class SVGElement {
    let tag: String
    let classes: [Substring]
    var text = ""
    var children: [SVGElement] = []
    init(tag: String, classes: [Substring]) { (self.tag, self.classes) = (tag, classes) }

    /// This element and every one below it, in document order.
    var descendants: [SVGElement] { children.reduce([self]) { $0 + $1.descendants } }
    /// The elements named `tag` carrying class `name`, in document order.
    func find(_ tag: String, _ name: String) -> [SVGElement] { descendants.filter { $0.tag == tag && $0.classes.contains(Substring(name)) } }
    /// The text of the first child named `tag`.
    func childText(_ tag: String) -> String? { children.first { $0.tag == tag }?.text }

    /// Parses `svg`; throws when it is not well-formed XML.
    static func read(_ svg: String) throws -> SVGElement {
        let reader = Reader()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = reader
        guard parser.parse(), let root = reader.open.first else { throw CocoaError(.fileReadCorruptFile) }
        return root
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var open: [SVGElement] = []
        var depth = 0
        func parser(_ parser: XMLParser, didStartElement tag: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]) {
            let element = SVGElement(tag: tag, classes: (attributes["class"] ?? "").split(separator: " "))
            if depth > 0 { open[depth - 1].children.append(element) }
            open = Array(open.prefix(depth)) + [element]
            depth += 1
        }
        func parser(_ parser: XMLParser, didEndElement tag: String, namespaceURI: String?, qualifiedName: String?) {
            depth -= 1
            if depth > 0 { open.removeLast() }
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { if depth > 0 { open[depth - 1].text += string } }
    }
}

extension CommandTests {
    /// Issue 15: stack --svg and evaluate --svg write well-formed SVG with their content; the stack's text explains its rests.
    @Suite("charts")
    struct ChartCommandTests {
        @Test("stack --svg: the day's title, hours, rows, spans and legend; the text explains hysteresis and the model's choices")
        func stackChart() async throws {
            let store = try await CLIStore.sample()
            try await store.succeed("shortcuts", "set", "--user", "me", Sample.declaration("calendar.json"), "--at", "2026-11-20T00:00:00-08:00")
            try await store.succeed("timeline", "set", "--user", "me", Sample.declaration("timelines.json"))
            let path = store.directory.appendingPathComponent("day.svg").path
            let stack = try await store.succeed("stack", "--user", "me", "--widgets", "weather,reminders", "--day", "2026-11-20", "--svg", path)
            let root = try SVGElement.read(try String(contentsOfFile: path, encoding: .utf8))
            #expect(root.find("text", "title").first?.text == "Smart Stack on 2026-11-20 for user me (America/Los_Angeles)")
            #expect(root.find("text", "hour-label").map(\.text) == (0 ..< 24).map { String(format: "%02d", $0) })
            #expect(root.find("line", "quarter-tick").count == 2 * 24 * 3)
            let rows = root.find("g", "widget-row")
            let names = rows.map { $0.find("text", "row-label").first?.text }
            #expect(names.prefix(2) == ["weather.forecast (Cupertino)", "reminders.list (Work)"] && names.contains("calendar.upnext"), "\(names)")
            #expect(rows.allSatisfy { $0.children.filter { $0.tag == "polyline" }.count == 1 }, "one score line per row")
            let tips = root.find("g", "span").map { $0.childText("title") ?? "" }
            #expect(tips.contains { $0.contains("calendar.upnext on top (inserted)") && $0.contains("window 09:30") }, "\(tips)")
            #expect(root.find("g", "legend-item").count == 8)
            #expect(stack.output.contains(/hysteresis: weather.forecast \(Cupertino\) is below the 0.30 rotation floor from [0-9]{2}:[0-9]{2}/),
                    "stack does not explain why a widget stays on top below its floor: \(stack)")
            #expect(stack.lines.contains { $0.hasPrefix("Hysteresis (15%): the widget on top competes with its score × 1.15") },
                    "stack does not state the hysteresis rule: \(stack)")
            #expect(stack.lines.contains {
                $0.prefixMatch(of: #/ +model's choice [0-9:]{5}-[0-9:]{5}  reminders.list \(Work\)  score [01]\.[0-9]{2}(-[01]\.[0-9]{2}, highest at [0-9:]{5})?/#) != nil
            }, "stack does not show the model's own choices under a resting span: \(stack)")
            let profile = try await store.succeed("stack", "--user", "me", "--widgets", "weather", "--day", "2026-11-20", "--model", "profile")
            #expect(profile.lines.filter { $0.contains("model's choice") }.count >= 2, "a day the model leaves resting reads as one line: \(profile)")
        }

        @Test("stack --svg -: the same SVG on standard output as in a file, the text report on standard error")
        func stackChartOnStandardOutput() async throws {
            let store = try await CLIStore.sample()
            let path = store.directory.appendingPathComponent("day.svg").path
            let arguments = ["stack", "--user", "me", "--widgets", "weather", "--day", "2026-11-20"]
            try await store.succeed(arguments + ["--svg", path])
            let piped = try await store.succeed(arguments + ["--svg", "-"])
            #expect(piped.output == (try String(contentsOfFile: path, encoding: .utf8)), "standard output is not the chart: \(piped.output.prefix(200))")
            _ = try SVGElement.read(piped.output)
            #expect(piped.error.hasPrefix("Stack weather"), "the text report is not on standard error: \(piped.error.prefix(200))")
        }

        @Test("evaluate --svg: one hit curve and one calibration curve per model, as the report says; evaluate --json")
        func evaluateChart() async throws {
            let store = try CLIStore()
            let file = { (name: String) in store.directory.appendingPathComponent(name).path }
            try #require(await proactive(["split", Sample.donations, "--by", "time", "--train-share", "0.5", "--train", file("t.jsonl"),
                                          "--test", file("v.jsonl")]).status == 0)
            let run = await proactive(["evaluate", "--train", file("t.jsonl"), "--test", file("v.jsonl"), "--online", "--compare", "--quiet",
                                       "--report", file("r.json"), "--svg", file("r.svg")])
            try #require(run.status == 0, "\(run)")
            let root = try SVGElement.read(try String(contentsOfFile: file("r.svg"), encoding: .utf8))
            let comparison = try JSONParser.parse(try String(contentsOfFile: file("r.json"), encoding: .utf8))["comparison"]?.array ?? []
            let curves = root.descendants.filter { $0.tag == "g" && $0.classes == ["hit-curve"] }
            #expect(curves.count == comparison.count && comparison.count >= 2, "\(curves.count) curves, \(comparison.count) models")
            for (curve, entry) in zip(curves, comparison) {
                let hits = entry["hit_at_k"]?.array?.compactMap(\.number) ?? []
                try #require(hits.count == 10, "\(entry)")
                let points = curve.children.filter { $0.classes == ["hit-point"] }.map { $0.childText("title") }
                let model = entry["model"]?.string ?? "?"
                #expect(points == (1 ... 10).map { "\(model): hit@\($0) = \(String(format: "%.3f", hits[$0 - 1]))" }, "\(points)")
                #expect(abs(hits[0] - (entry["hit@1"]?.number ?? .nan)) < 1e-12 && abs(hits[3] - (entry["hit@4"]?.number ?? .nan)) < 1e-12, "\(entry)")
                let bins = entry["calibration"]?.array ?? []
                #expect(bins.count == 10 && bins.compactMap { $0["count"]?.integer }.reduce(0, +) <= (entry["events"]?.integer ?? -1), "\(entry)")
            }
            #expect(root.descendants.filter { $0.tag == "g" && $0.classes == ["calibration-curve"] }.count == comparison.count)
            let json = try await proactive(["evaluate", "--train", file("t.jsonl"), "--test", file("v.jsonl"), "--json", "--quiet"]).json()
            #expect(json["hit_at_k"]?.array?.count == 10 && json["calibration"]?.array?.count == 10, "\(json)")
        }
    }
}
