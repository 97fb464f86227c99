/// The live page (`GET /`): an HTML document, its style sheet and its script, as the package
/// embedded them at build time (`Page/`). The page is a client of the API like any other; the
/// server only hands it out.
extension LifecycleAPI {
  func page() -> APIResponse {
    APIResponse(
      status: 200, contentType: "text/html; charset=utf-8", headers: Self.pagePolicy,
      body: PackageResources.index_html)
  }

  func pageStyle() -> APIResponse {
    APIResponse(
      status: 200, contentType: "text/css; charset=utf-8", body: PackageResources.page_css)
  }

  func pageScript() -> APIResponse {
    APIResponse(
      status: 200, contentType: "text/javascript; charset=utf-8", body: PackageResources.page_js)
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
