import Foundation
import ProactiveCore
import Testing
@testable import ProactiveRanking

@Suite struct RenderingTests {
    // MARK: Checksums (published check values)

    @Test func checksumsMatchTheirCheckValues() {
        #expect(PNGEncoder.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(PNGEncoder.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(PNGEncoder.adler32([]) == 1)
        // Adler-32 past zlib's NMAX run length, against the definition.
        let long = (0..<20_000).map { UInt8($0 % 251) }
        var a = 1, b = 0
        for byte in long { a = (a + Int(byte)) % 65_521; b = (b + a) % 65_521 }
        #expect(PNGEncoder.adler32(long) == UInt32(b << 16 | a))
    }

    // MARK: The file

    /// Splits a PNG into (type, payload) after checking the signature and every CRC.
    func chunks(_ png: [UInt8]) throws -> [(String, [UInt8])] {
        #expect(Array(png.prefix(8)) == PNGEncoder.signature)
        var chunks: [(String, [UInt8])] = []
        var offset = 8
        func u32(_ at: Int) -> Int { Int(png[at]) << 24 | Int(png[at + 1]) << 16 | Int(png[at + 2]) << 8 | Int(png[at + 3]) }
        while offset < png.count {
            let length = u32(offset)
            let type = Array(png[(offset + 4)..<(offset + 8)])
            let payload = Array(png[(offset + 8)..<(offset + 8 + length)])
            #expect(UInt32(u32(offset + 8 + length)) == PNGEncoder.crc32(type + payload))
            chunks.append((String(decoding: type, as: UTF8.self), payload))
            offset += 12 + length
        }
        return chunks
    }

    /// Reads a zlib stream of stored blocks back (what any inflater does for BTYPE 00).
    func inflateStored(_ stream: [UInt8]) throws -> [UInt8] {
        #expect((Int(stream[0]) << 8 | Int(stream[1])) % 31 == 0)
        var output: [UInt8] = []
        var offset = 2
        while true {
            let header = stream[offset]
            #expect(header & 0b110 == 0, "stored block")
            let length = Int(stream[offset + 1]) | Int(stream[offset + 2]) << 8
            let complement = Int(stream[offset + 3]) | Int(stream[offset + 4]) << 8
            #expect(length ^ complement == 0xFFFF)
            output += stream[(offset + 5)..<(offset + 5 + length)]
            offset += 5 + length
            if header & 1 == 1 { break }
        }
        let adler = UInt32(stream[offset]) << 24 | UInt32(stream[offset + 1]) << 16 | UInt32(stream[offset + 2]) << 8 | UInt32(stream[offset + 3])
        #expect(adler == PNGEncoder.adler32(output) && offset + 4 == stream.count)
        return output
    }

    @Test(arguments: [(1, 1), (3, 2), (200, 150)])   // 200 x 150 needs two stored blocks
    func pngRoundTripsItsPixels(width: Int, height: Int) throws {
        let rgb: [UInt8] = (0..<(width * height * 3)).map { (index: Int) -> UInt8 in UInt8((index * 7 + index / 3) % 256) }
        let parts = try chunks(PNGEncoder.encode(width: width, height: height, rgb: rgb))
        #expect(parts.map { $0.0 } == ["IHDR", "IDAT", "IEND"])
        let header: [UInt8] = [0, 0, UInt8(width >> 8), UInt8(width & 0xFF), 0, 0, UInt8(height >> 8), UInt8(height & 0xFF), 8, 2, 0, 0, 0]
        #expect(parts[0].1 == header)
        let raw = try inflateStored(parts[1].1)
        #expect(raw.count == height * (width * 3 + 1))
        var pixels: [UInt8] = []
        for row in 0..<height {
            let start = row * (width * 3 + 1)
            #expect(raw[start] == 0)  // filter: None
            pixels += raw[(start + 1)..<(start + 1 + width * 3)]
        }
        #expect(pixels == rgb)
        #expect(parts[2].1.isEmpty)
    }

    // MARK: Canvas and chart

    @Test func canvasClipsAndDrawsText() {
        var canvas = Canvas(width: 20, height: 10, background: RGB(255, 255, 255))
        canvas.fill(x: -5, y: -5, width: 8, height: 8, RGB(0, 0, 0))
        #expect(canvas.pixel(x: 2, y: 2) == RGB(0, 0, 0) && canvas.pixel(x: 3, y: 3) == RGB(255, 255, 255))
        canvas.text("1", x: 10, y: 1, RGB(255, 0, 0))
        #expect(canvas.pixel(x: 12, y: 1) == RGB(255, 0, 0))              // the top of the "1"
        #expect(canvas.pixel(x: 10, y: 1) == RGB(255, 255, 255))
        #expect(Canvas.textWidth("abc") == 18)
    }

    @Test func theChartShowsWhatIsOnTop() throws {
        let stack = SmartStack(widgets: [Talk.weather, Talk.reminders])
        let ranker = Ranker(declarations: try Talk.declarations(), targets: Talk.targets)
        let day = DaySimulation(engine: SmartStackEngine(ranker: ranker), utcOffset: Day.offset)
            .run(stack, model: Talk.model(), from: Day.midnight, to: Day.at(24))
        let chart = DayChart()
        let canvas = chart.render(day, utcOffset: Day.offset)
        let labelWidth = day.rows.map { Canvas.textWidth($0.displayName) }.max()! + 2 * chart.margin
        let headerHeight = 7 + 2 * chart.margin
        func cell(row: Int, hour: Int, minute: Int) -> RGB {
            canvas.pixel(x: labelWidth + hour * 60 + minute, y: headerHeight + row * chart.rowHeight + chart.rowHeight / 2)
        }
        #expect(canvas.width == labelWidth + 1440 + chart.margin && canvas.height == headerHeight + 3 * chart.rowHeight + 3 * chart.margin + 7)
        #expect(cell(row: 0, hour: 7, minute: 1) == DayChart.rotated)          // weather after waking
        #expect(cell(row: 2, hour: 9, minute: 45) == DayChart.inserted)        // calendar inserted
        #expect(cell(row: 1, hour: 15, minute: 30) == DayChart.rotated)        // reminders at 15:00
        #expect(cell(row: 0, hour: 3, minute: 1) == DayChart.resting)
        #expect(cell(row: 1, hour: 3, minute: 1) == DayChart.background)       // no score, not on top
        #expect(try chunks(canvas.png()).count == 3)
    }

    /// Issue 16, item 12: on the day clocks go back the chart has 25 hour marks
    /// (1 twice), on the day they go forward 23 (no 2), read at each instant.
    @Test func hourMarksFollowTheClockThroughDaylightSaving() throws {
        let zone = try #require(TimeZone(identifier: "America/Los_Angeles"))
        let offsetAt = { (date: Date) in zone.secondsFromGMT(for: date) }
        let stack = SmartStack(widgets: [Talk.weather])
        let ranker = Ranker(declarations: try Talk.declarations(), targets: Talk.targets)
        func hours(_ year: Int, _ month: Int, _ day: Int) -> [Int] {
            let days = Timestamp.daysFromCivil(year: year, month: month, day: day)
            let start = LocalClock.startOfDay(days, offsetAt: offsetAt), end = LocalClock.startOfDay(days + 1, offsetAt: offsetAt)
            let simulation = DaySimulation(engine: SmartStackEngine(ranker: ranker), utcOffsetAt: { zone.secondsFromGMT(for: $0) }, contextAt: { _ in [:] }, step: 3600)
                .run(stack, from: start, to: end) { _ in [] }
            return DayChart.hourMarks(simulation, utcOffsetAt: offsetAt).map(\.hour)
        }
        #expect(hours(2026, 11, 1) == [0, 1, 1] + Array(2...23))
        #expect(hours(2026, 3, 8) == [0, 1] + Array(3...23))
        #expect(hours(2026, 11, 20) == Array(0...23))
    }
}
