/// Commands as RESP: an array of bulk strings (`*2\r\n$3\r\nGET\r\n$1\r\nk\r\n`).
enum RedisCommandEncoding {
    /// Appends `arguments` as one command to `output`.
    static func append(_ arguments: [[UInt8]], to output: inout [UInt8]) {
        output.append(UInt8(ascii: "*"))
        appendDecimal(arguments.count, to: &output)
        for argument in arguments {
            output.append(UInt8(ascii: "$"))
            appendDecimal(argument.count, to: &output)
            output.append(contentsOf: argument)
            output.append(13)
            output.append(10)
        }
    }

    /// `value` in decimal, then CRLF.
    private static func appendDecimal(_ value: Int, to output: inout [UInt8]) {
        if value >= 10 { appendDigits(value / 10, to: &output) }
        output.append(UInt8(ascii: "0") + UInt8(value % 10))
        output.append(13)
        output.append(10)
    }

    private static func appendDigits(_ value: Int, to output: inout [UInt8]) {
        if value >= 10 { appendDigits(value / 10, to: &output) }
        output.append(UInt8(ascii: "0") + UInt8(value % 10))
    }
}
