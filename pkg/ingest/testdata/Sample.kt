package demo

import kotlin.math.max

/** KDoc with a brace { */
data class Point(val x: Int, val y: Int)

fun describe(p: Point): String {
    val raw = """raw ${p.x} with } and "quotes" ${ if (p.y > 0) "}" else "{" }"""
    val c = '}'
    return "point ${p.x}, ${p.y} }" + raw + c
}

/* nested /* comment } */ still comment { */
class Service(
    private val repo: Repo,
) : Base() {
    val size: Int
        get() = repo.size

    fun run() {
        println("run {")
    }
}

fun `weird name with }`() = Unit
