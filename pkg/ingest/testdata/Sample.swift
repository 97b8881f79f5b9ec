import Foundation

/// Doc with a brace {
struct Point {
    var x: Int
    var y: Int
}

let raw = #"raw "string" with } and \(not interpolated)"#
let multi = """
    multi-line with } and \(1 + 2) interpolation
    """

func describe(_ p: Point) -> String {
    return "point \(p.x + (p.y > 0 ? 1 : 2)) }"
}

#if os(Linux)
func platform() -> String { "linux" }
#else
func platform() -> String { "other" }
#endif

@MainActor
final class Model: ObservableObject {
    @Published var count = 0

    func inc() { count += 1 }
}
