/// The live page (`GET /`): an HTML document, its style sheet and its script, as the package
/// embedded them at build time (`Page/`). The page is a client of the API like any other; the
/// server only hands it out.
extension LifecycleAPI {
  func page() -> APIResponse {
    pageFile(
      PackageResources.index_html, type: "text/html; charset=utf-8", headers: Self.pagePolicy)
  }

  func pageStyle() -> APIResponse {
    pageFile(PackageResources.page_css, type: "text/css; charset=utf-8")
  }

  func pageScript() -> APIResponse {
    pageFile(PackageResources.page_js, type: "text/javascript; charset=utf-8")
  }

  private func pageFile(
    _ bytes: [UInt8], type: String, headers: [(name: String, value: String)] = []
  ) -> APIResponse {
    APIResponse(status: 200, contentType: type, headers: headers, body: bytes)
  }

  /// What the page may do, as its `Content-Security-Policy` says: run only the server's own
  /// script and style, talk only to the server, never be framed (a form in another site's
  /// frame could be clicked unseen), submit no form anywhere, load nothing from elsewhere
  /// (its icon is an empty `data:` one, so that the browser asks for no `/favicon.ico`).
  private static let pagePolicy: [(name: String, value: String)] = [
    (
      "Content-Security-Policy",
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        + "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    ("Referrer-Policy", "no-referrer"),
  ]
}
