import Hummingbird

/// Serves GET /health with the same 100-byte JSON body as Benchmarks/CeilingServer/ceiling.c,
/// on 127.0.0.1 and the port given as the only argument. Defaults everywhere else: what a user
/// of Hummingbird would write.
let body = ByteBuffer(
  string:
    #"{"status":"ok","version":"0.1.0","uptimeSeconds":1.0,"requests":1,"padding":"xxxxxxxxxxxxxxxxxxxxx"}"#
)
let router = Router()
router.get("health") { _, _ in
  Response(
    status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: body))
}
let port = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 8080
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
