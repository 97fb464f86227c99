import Foundation
import Testing

@testable import LifecycleAPI

/// The live page (`GET /`) and its two files, as the package embedded them; what the browser
/// does with them is `Tests/LivePage`'s to test.
@Suite struct PageTests {
  let api = APITests()

  /// The committed text of one of the page's files.
  private func committed(_ name: String) throws -> String {
    try String(
      contentsOfFile: #filePath.components(separatedBy: "/Tests/")[0]
        + "/Sources/LifecycleAPI/Page/\(name)", encoding: .utf8)
  }

  @Test(arguments: [
    ("/", "index.html", "text/html; charset=utf-8"),
    ("/page.css", "page.css", "text/css; charset=utf-8"),
    ("/page.js", "page.js", "text/javascript; charset=utf-8"),
  ])
  func servesEachFileAsCommitted(path: String, file: String, type: String) throws {
    let response = api.api.handle(APIRequest(method: "GET", path: path[...]), now: .zero)
    #expect(response?.status == 200)
    #expect(response?.contentType == type)
    #expect(response.map { String(decoding: $0.body, as: UTF8.self) } == (try committed(file)))
  }

  /// The document runs only the server's own script and style, talks only to the server, and
  /// is never framed.
  @Test func theDocumentCarriesItsPolicy() {
    let answer = api.call("GET", "/")
    #expect(
      answer.headers["Content-Security-Policy"]
        == "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        + "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
    #expect(answer.headers["Referrer-Policy"] == "no-referrer")
    #expect(api.call("GET", "/page.js").headers["Content-Security-Policy"] == nil)
  }

  /// Nothing is fetched from elsewhere: every address in the page is a path of the server.
  @Test func everyAddressIsTheServers() throws {
    let html = try committed("index.html")
    let addresses = html.matches(of: /(?:href|src)="([^"]*)"/).map { String($0.output.1) }
    #expect(addresses == ["data:,", "/page.css", "/page.js", "/openapi.yaml"])
    for file in ["index.html", "page.css", "page.js"] {
      let text = try committed(file)
      #expect(!text.contains("http:") && !text.contains("https:") && !text.contains("@import"))
    }
  }
}
