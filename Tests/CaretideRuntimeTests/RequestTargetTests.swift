import Testing

@testable import CaretideRuntime

/// The pass that clears a request target of U+0000 before its path and query are decoded (`APIRoutes.refuseNUL`):
/// it must miss no `%00`, wherever it stands, or the decoded NUL reaches a statement.
@Suite struct RequestTargetTests {
    @Test(
        "a %00 anywhere, or a NUL byte, calls for the full check",
        arguments: ["%00", "/p%001", "/v1/foods?q=ap%00ple", "/x?a=%0%00", "/x%%00", "/a\u{0}b"])
    func held(_ target: String) {
        #expect(APIRoutes.mayHoldNUL(target.utf8))
    }

    @Test("a target without one is cleared", arguments: ["/", "/v1/patients/p1/profile?x=1", "/a%2500", "/a%0", "/a%20%30", "/0%%0", "/a%0a0"])
    func cleared(_ target: String) {
        #expect(!APIRoutes.mayHoldNUL(target.utf8))
    }
}
