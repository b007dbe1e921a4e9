// MARK: - An RGB canvas

/// An 8-bit RGB colour.
public struct RGB: Sendable, Hashable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// The colour `fraction` (0...1) of the way from `self` to `other`.
    public func mixed(with other: RGB, _ fraction: Double) -> RGB {
        let f = min(1, max(0, fraction))
        func channel(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) + (Double(b) - Double(a)) * f).rounded()) }
        return RGB(channel(red, other.red), channel(green, other.green), channel(blue, other.blue))
    }
}

/// A pixel buffer with the few drawing operations charts need. Drawing
/// outside the canvas is clipped.
public struct Canvas: Sendable {
    public let width: Int
    public let height: Int
    /// Row-major RGB bytes.
    public private(set) var pixels: [UInt8]

    /// - Precondition: `width > 0`, `height > 0`.
    public init(width: Int, height: Int, background: RGB) {
        precondition(width > 0 && height > 0, "a canvas has at least one pixel")
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 3)
        fill(x: 0, y: 0, width: width, height: height, background)
    }

    public func pixel(x: Int, y: Int) -> RGB {
        let index = (y * width + x) * 3
        return RGB(pixels[index], pixels[index + 1], pixels[index + 2])
    }

    public mutating func set(x: Int, y: Int, _ colour: RGB) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let index = (y * width + x) * 3
        pixels[index] = colour.red
        pixels[index + 1] = colour.green
        pixels[index + 2] = colour.blue
    }

    /// Fills the rectangle (clipped).
    public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, _ colour: RGB) {
        let x0 = max(0, x)
        let y0 = max(0, y)
        let x1 = min(width, x + w)
        let y1 = min(height, y + h)
        guard x0 < x1, y0 < y1 else { return }
        for row in y0..<y1 {
            for column in x0..<x1 { set(x: column, y: row, colour) }
        }
    }

    /// Draws `text` with the 5x7 pixel font, top-left at (x, y).
    public mutating func text(_ text: String, x: Int, y: Int, _ colour: RGB) {
        var left = x
        for character in text {
            for row in 0..<PixelFont.height {
                for column in 0..<PixelFont.width where PixelFont.isSet(character, column: column, row: row) {
                    set(x: left + column, y: y + row, colour)
                }
            }
            left += PixelFont.advance
        }
    }

    /// The width `text` takes in pixels.
    public static func textWidth(_ text: String) -> Int { text.count * PixelFont.advance }

    /// The canvas as PNG bytes.
    public func png() -> [UInt8] { PNGEncoder.encode(width: width, height: height, rgb: pixels) }
}
