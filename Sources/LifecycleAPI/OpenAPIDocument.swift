// Generated from openapi.yaml by scripts/embed-openapi. Do not edit: a test keeps the two equal.
// swift-format-ignore-file

/// The API's contract, served at `GET /openapi.yaml`.
enum OpenAPIDocument {
  static let yaml = ##"""
openapi: 3.1.0
info:
  title: lifecycled
  version: 0.1.0
  summary: Simulated iOS app lifecycles over HTTP.
  description: |
    Hosts named simulated iOS apps on isolated devices. Post a system event (launch, home,
    lock, incoming call, memory warning, background fetch, force-quit, ...) and get back the
    resulting lifecycle state and the ordered UIKit callbacks iOS would deliver. Devices with a
    `manual` clock move only when advanced; `realtime` devices follow the server's clock.

    Times are seconds (JSON numbers, millisecond precision) on the device's clock, counted from
    the device's creation. Errors are RFC 9457 problem documents with stable `type`
    identifiers of the form `urn:lifecycled:problem:<name>`. Requests the HTTP layer refuses
    (malformed framing, limits, timeouts) get a problem document with type `about:blank` and a
    closed connection.

    The paths under `/v1/apps` address the `default` device, which always exists.
  license:
    name: Apache-2.0
servers:
  - url: http://127.0.0.1:8080
tags:
  - name: devices
  - name: apps
  - name: events
  - name: time
  - name: logs
  - name: operations

paths:
  /livez:
    get:
      tags: [operations]
      operationId: liveness
      summary: The process is alive.
      responses:
        "200":
          description: "Alive."
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Status" }
              example: { status: ok }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        default: { $ref: "#/components/responses/ProtocolError" }
  /readyz:
    get:
      tags: [operations]
      operationId: readiness
      summary: Ready for traffic; 503 while shutting down.
      responses:
        "200":
          description: "Ready."
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Status" }
              example: { status: ready }
        "503":
          description: "Draining after SIGTERM."
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Status" }
              example: { status: draining }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        default: { $ref: "#/components/responses/ProtocolError" }
  /health:
    get:
      tags: [operations]
      operationId: health
      summary: Status, version, uptime and counts.
      responses:
        "200":
          description: "Health."
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Health" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        default: { $ref: "#/components/responses/ProtocolError" }
  /metrics:
    get:
      tags: [operations]
      operationId: metrics
      summary: Prometheus metrics (text exposition format 0.0.4).
      description: >
        lifecycled_http_requests_total{route,status}, lifecycled_events_total{type},
        lifecycled_transitions_total, lifecycled_kills_total{cause,reason},
        lifecycled_devices, lifecycled_apps, lifecycled_journal_dropped_total.
      responses:
        "200":
          description: The metrics.
          content:
            text/plain:
              schema: { type: string }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        default: { $ref: "#/components/responses/ProtocolError" }
  /__admin/reset:
    post:
      tags: [operations]
      operationId: reset
      summary: Everything back to the configured start (only an empty `default` device). Idempotent.
      responses:
        "204": { description: Reset. }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        default: { $ref: "#/components/responses/ProtocolError" }

  /v1/devices:
    get:
      tags: [devices]
      operationId: listDevices
      summary: Every device, in id order.
      responses:
        "200":
          description: "The devices."
          content:
            application/json:
              schema:
                type: object
                required: [devices]
                additionalProperties: false
                properties:
                  devices: { type: array, items: { $ref: "#/components/schemas/Device" } }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        default: { $ref: "#/components/responses/ProtocolError" }
    post:
      tags: [devices]
      operationId: createDevice
      summary: Create a device; unset fields take the configured defaults.
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: "#/components/schemas/DeviceCreate" }
            example: { id: ci-1, clock: manual, memoryLimitMB: 2048 }
      responses:
        "201":
          description: "Created."
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Device" }
        "400": { $ref: "#/components/responses/InvalidJSON" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        "409": { $ref: "#/components/responses/Conflict" }
        "415": { $ref: "#/components/responses/UnsupportedMediaType" }
        "422": { $ref: "#/components/responses/Validation" }
        default: { $ref: "#/components/responses/ProtocolError" }
  /v1/devices/{device}:
    parameters: [{ $ref: "#/components/parameters/Device" }]
    get:
      tags: [devices]
      operationId: getDevice
      responses:
        "200":
          description: "The device."
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Device" }
        "404": { $ref: "#/components/responses/NotFound" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        default: { $ref: "#/components/responses/ProtocolError" }
    delete:
      tags: [devices]
      operationId: deleteDevice
      summary: Remove a device and its apps. The `default` device cannot be removed (409).
      responses:
        "204": { description: Removed. }
        "404": { $ref: "#/components/responses/NotFound" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        "409": { $ref: "#/components/responses/Conflict" }
        default: { $ref: "#/components/responses/ProtocolError" }
  /v1/devices/{device}/events:
    parameters: [{ $ref: "#/components/parameters/Device" }]
    post:
      tags: [events]
      operationId: postDeviceEvent
      summary: Post a device event, or an array of them applied in order.
      requestBody:
        required: true
        content:
          application/json:
            schema:
              oneOf:
                - $ref: "#/components/schemas/DeviceEvent"
                - type: array
                  minItems: 1
                  maxItems: 100
                  items: { $ref: "#/components/schemas/DeviceEvent" }
            example: { type: lock }
      responses:
        "200":
          description: "What the event did; for an array, an object with the `results` of each."
          content:
            application/json:
              schema:
                oneOf:
                  - $ref: "#/components/schemas/EventResponse"
                  - $ref: "#/components/schemas/ScenarioResponse"
        "400": { $ref: "#/components/responses/InvalidJSON" }
        "404": { $ref: "#/components/responses/NotFound" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        "409": { $ref: "#/components/responses/Refused" }
        "415": { $ref: "#/components/responses/UnsupportedMediaType" }
        "422": { $ref: "#/components/responses/Validation" }
        default: { $ref: "#/components/responses/ProtocolError" }
  /v1/devices/{device}/clock:
    parameters: [{ $ref: "#/components/parameters/Device" }]
    get:
      tags: [time]
      operationId: getClock
      responses:
        "200":
          description: "The device's clock."
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Clock" }
        "404": { $ref: "#/components/responses/NotFound" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        default: { $ref: "#/components/responses/ProtocolError" }
  /v1/devices/{device}/clock/advance:
    parameters: [{ $ref: "#/components/parameters/Device" }]
    post:
      tags: [time]
      operationId: advanceClock
      summary: Move the device's clock forward, firing every deadline on the way in order.
      description: On a realtime device the advance adds an offset to its clock.
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [seconds]
              additionalProperties: false
              properties:
                seconds: { type: number, minimum: 0, maximum: 315360000 }
            example: { seconds: 5 }
      responses:
        "200":
          description: "What happened while the clock moved."
          content:
            application/json:
              schema: { $ref: "#/components/schemas/ClockAdvance" }
        "400": { $ref: "#/components/responses/InvalidJSON" }
        "404": { $ref: "#/components/responses/NotFound" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        "415": { $ref: "#/components/responses/UnsupportedMediaType" }
        "422": { $ref: "#/components/responses/Validation" }
        default: { $ref: "#/components/responses/ProtocolError" }
  /v1/devices/{device}/journal:
    parameters: [{ $ref: "#/components/parameters/Device" }]
    get:
      tags: [logs]
      operationId: getJournal
      summary: Every event, callback and transition of the device, in order.
      parameters:
        - { $ref: "#/components/parameters/Since" }
        - { $ref: "#/components/parameters/Limit" }
        - name: app
          in: query
          description: "Only entries of this app."
          schema: { $ref: "#/components/schemas/Name" }
      responses:
        "200":
          description: "A slice of the journal."
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Journal" }
        "404": { $ref: "#/components/responses/NotFound" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        "422": { $ref: "#/components/responses/Validation" }
        default: { $ref: "#/components/responses/ProtocolError" }
  /v1/devices/{device}/jetsam:
    parameters: [{ $ref: "#/components/parameters/Device" }]
    get:
      tags: [logs]
      operationId: getJetsamLog
      summary: Every jetsam kill of the device, oldest first.
      responses:
        "200":
          description: "The jetsam log."
          content:
            application/json:
              schema: { $ref: "#/components/schemas/JetsamLog" }
        "404": { $ref: "#/components/responses/NotFound" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        default: { $ref: "#/components/responses/ProtocolError" }
  /v1/devices/{device}/apps:
    parameters: [{ $ref: "#/components/parameters/Device" }]
    get:
      tags: [apps]
      operationId: listApps
      summary: Every app of the device, in name order.
      responses:
        "200":
          description: "The apps."
          content:
            application/json:
              schema:
                type: object
                required: [apps]
                additionalProperties: false
                properties:
                  apps: { type: array, items: { $ref: "#/components/schemas/App" } }
        "404": { $ref: "#/components/responses/NotFound" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        default: { $ref: "#/components/responses/ProtocolError" }
    post:
      tags: [apps]
      operationId: createApp
      summary: Create an app, not running.
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: "#/components/schemas/AppCreate" }
            example: { name: mail, lifecycle: scene, memoryMB: 150, backgroundModes: [fetch] }
      responses:
        "201":
          description: "Created."
          content:
            application/json:
              schema: { $ref: "#/components/schemas/App" }
        "400": { $ref: "#/components/responses/InvalidJSON" }
        "404": { $ref: "#/components/responses/NotFound" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        "409": { $ref: "#/components/responses/Conflict" }
        "415": { $ref: "#/components/responses/UnsupportedMediaType" }
        "422": { $ref: "#/components/responses/Validation" }
        default: { $ref: "#/components/responses/ProtocolError" }
  /v1/devices/{device}/apps/{app}:
    parameters: [{ $ref: "#/components/parameters/Device" }, { $ref: "#/components/parameters/App" }]
    get:
      tags: [apps]
      operationId: getApp
      responses:
        "200":
          description: "The app."
          content:
            application/json:
              schema: { $ref: "#/components/schemas/App" }
        "404": { $ref: "#/components/responses/NotFound" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        default: { $ref: "#/components/responses/ProtocolError" }
    delete:
      tags: [apps]
      operationId: deleteApp
      summary: Remove an app, whatever its state.
      responses:
        "204": { description: Removed. }
        "404": { $ref: "#/components/responses/NotFound" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        default: { $ref: "#/components/responses/ProtocolError" }
  /v1/devices/{device}/apps/{app}/events:
    parameters: [{ $ref: "#/components/parameters/Device" }, { $ref: "#/components/parameters/App" }]
    post:
      tags: [events]
      operationId: postAppEvent
      summary: Post an app event, or an array of them applied in order (a scenario).
      requestBody:
        required: true
        content:
          application/json:
            schema:
              oneOf:
                - $ref: "#/components/schemas/AppEvent"
                - type: array
                  minItems: 1
                  maxItems: 100
                  items: { $ref: "#/components/schemas/AppEvent" }
            example: { type: home }
      responses:
        "200":
          description: "What the event did; for an array, an object with the `results` of each."
          content:
            application/json:
              schema:
                oneOf:
                  - $ref: "#/components/schemas/EventResponse"
                  - $ref: "#/components/schemas/ScenarioResponse"
        "400": { $ref: "#/components/responses/InvalidJSON" }
        "404": { $ref: "#/components/responses/NotFound" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        "409": { $ref: "#/components/responses/Refused" }
        "415": { $ref: "#/components/responses/UnsupportedMediaType" }
        "422": { $ref: "#/components/responses/Validation" }
        default: { $ref: "#/components/responses/ProtocolError" }
  /v1/devices/{device}/apps/{app}/callbacks:
    parameters: [{ $ref: "#/components/parameters/Device" }, { $ref: "#/components/parameters/App" }]
    get:
      tags: [logs]
      operationId: getCallbacks
      summary: The callbacks delivered to the app, oldest first.
      parameters:
        - { $ref: "#/components/parameters/Since" }
        - { $ref: "#/components/parameters/Limit" }
      responses:
        "200":
          description: "The callbacks."
          content:
            application/json:
              schema:
                type: object
                required: [callbacks]
                additionalProperties: false
                properties:
                  callbacks: { type: array, items: { $ref: "#/components/schemas/Callback" } }
        "404": { $ref: "#/components/responses/NotFound" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        "422": { $ref: "#/components/responses/Validation" }
        default: { $ref: "#/components/responses/ProtocolError" }
  /v1/apps:
    get:
      tags: [apps]
      operationId: listAppsOnDefaultDevice
      summary: Every app of the device, in name order.
      responses:
        "200":
          description: "The apps."
          content:
            application/json:
              schema:
                type: object
                required: [apps]
                additionalProperties: false
                properties:
                  apps: { type: array, items: { $ref: "#/components/schemas/App" } }
        "404": { $ref: "#/components/responses/NotFound" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        default: { $ref: "#/components/responses/ProtocolError" }
    post:
      tags: [apps]
      operationId: createAppOnDefaultDevice
      summary: Create an app, not running.
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: "#/components/schemas/AppCreate" }
            example: { name: mail, lifecycle: scene, memoryMB: 150, backgroundModes: [fetch] }
      responses:
        "201":
          description: "Created."
          content:
            application/json:
              schema: { $ref: "#/components/schemas/App" }
        "400": { $ref: "#/components/responses/InvalidJSON" }
        "404": { $ref: "#/components/responses/NotFound" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        "409": { $ref: "#/components/responses/Conflict" }
        "415": { $ref: "#/components/responses/UnsupportedMediaType" }
        "422": { $ref: "#/components/responses/Validation" }
        default: { $ref: "#/components/responses/ProtocolError" }
  /v1/apps/{app}:
    parameters: [{ $ref: "#/components/parameters/App" }]
    get:
      tags: [apps]
      operationId: getAppOnDefaultDevice
      responses:
        "200":
          description: "The app."
          content:
            application/json:
              schema: { $ref: "#/components/schemas/App" }
        "404": { $ref: "#/components/responses/NotFound" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        default: { $ref: "#/components/responses/ProtocolError" }
    delete:
      tags: [apps]
      operationId: deleteAppOnDefaultDevice
      summary: Remove an app, whatever its state.
      responses:
        "204": { description: Removed. }
        "404": { $ref: "#/components/responses/NotFound" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        default: { $ref: "#/components/responses/ProtocolError" }
  /v1/apps/{app}/events:
    parameters: [{ $ref: "#/components/parameters/App" }]
    post:
      tags: [events]
      operationId: postAppEventOnDefaultDevice
      summary: Post an app event, or an array of them applied in order (a scenario).
      requestBody:
        required: true
        content:
          application/json:
            schema:
              oneOf:
                - $ref: "#/components/schemas/AppEvent"
                - type: array
                  minItems: 1
                  maxItems: 100
                  items: { $ref: "#/components/schemas/AppEvent" }
            example: { type: home }
      responses:
        "200":
          description: "What the event did; for an array, an object with the `results` of each."
          content:
            application/json:
              schema:
                oneOf:
                  - $ref: "#/components/schemas/EventResponse"
                  - $ref: "#/components/schemas/ScenarioResponse"
        "400": { $ref: "#/components/responses/InvalidJSON" }
        "404": { $ref: "#/components/responses/NotFound" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        "409": { $ref: "#/components/responses/Refused" }
        "415": { $ref: "#/components/responses/UnsupportedMediaType" }
        "422": { $ref: "#/components/responses/Validation" }
        default: { $ref: "#/components/responses/ProtocolError" }
  /v1/apps/{app}/callbacks:
    parameters: [{ $ref: "#/components/parameters/App" }]
    get:
      tags: [logs]
      operationId: getCallbacksOnDefaultDevice
      summary: The callbacks delivered to the app, oldest first.
      parameters:
        - { $ref: "#/components/parameters/Since" }
        - { $ref: "#/components/parameters/Limit" }
      responses:
        "200":
          description: "The callbacks."
          content:
            application/json:
              schema:
                type: object
                required: [callbacks]
                additionalProperties: false
                properties:
                  callbacks: { type: array, items: { $ref: "#/components/schemas/Callback" } }
        "404": { $ref: "#/components/responses/NotFound" }
        "405": { $ref: "#/components/responses/MethodNotAllowed" }
        "422": { $ref: "#/components/responses/Validation" }
        default: { $ref: "#/components/responses/ProtocolError" }

components:
  parameters:
    Device:
      name: device
      in: path
      required: true
      schema: { $ref: "#/components/schemas/Name" }
    App:
      name: app
      in: path
      required: true
      schema: { $ref: "#/components/schemas/Name" }
    Since:
      name: since
      in: query
      description: Only entries whose `seq` is greater.
      schema: { type: integer, format: int64, minimum: 0, maximum: 9223372036854775807 }
    Limit:
      name: limit
      in: query
      description: At most this many entries (default 1000).
      schema: { type: integer, minimum: 0, maximum: 10000 }

  responses:
    InvalidJSON:
      description: The body is not valid JSON (malformed, duplicate keys, too deep, a number out of range).
      content:
        application/problem+json:
          schema: { $ref: "#/components/schemas/Problem" }
    NotFound:
      description: No such route, device or app.
      content:
        application/problem+json:
          schema: { $ref: "#/components/schemas/Problem" }
    MethodNotAllowed:
      description: The resource does not answer this method; `Allow` lists those it does.
      headers:
        Allow: { schema: { type: string }, required: true }
      content:
        application/problem+json:
          schema: { $ref: "#/components/schemas/Problem" }
    Conflict:
      description: The resource exists already, a limit is reached, or the default device cannot be removed.
      content:
        application/problem+json:
          schema: { $ref: "#/components/schemas/Problem" }
    Refused:
      description: An event impossible in the current state; nothing changed (for a scenario, the events before it were applied).
      content:
        application/problem+json:
          schema: { $ref: "#/components/schemas/RefusalProblem" }
    UnsupportedMediaType:
      description: The body is not `application/json`.
      content:
        application/problem+json:
          schema: { $ref: "#/components/schemas/Problem" }
    Validation:
      description: Well-formed JSON with fields that are missing, unknown, of the wrong type or out of range; each is named.
      content:
        application/problem+json:
          schema: { $ref: "#/components/schemas/ValidationProblem" }
    ProtocolError:
      description: >
        Refused by the HTTP layer, with `Connection: close`: 400 malformed request, 408
        request timeout, 413 body too large, 414 request line too long, 417 unsupported
        expectation, 431 header fields too large, 501 CONNECT or a transfer coding not
        implemented, 505 HTTP version not supported.
      content:
        application/problem+json:
          schema: { $ref: "#/components/schemas/Problem" }

  schemas:
    Name:
      type: string
      pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
    Time:
      description: Seconds on the device's clock since the device was created.
      type: number
    AppState:
      type: string
      enum: [notRunning, inactive, active, background, suspended]
    SceneState:
      type: string
      enum: [unattached, foregroundInactive, foregroundActive, background, suspended]
    EventType:
      type: string
      enum:
        - launch
        - home
        - openSwitcher
        - closeSwitcher
        - interruptionBegan
        - interruptionEnded
        - terminate
        - crash
        - purge
        - backgroundLaunch
        - backgroundWorkCompleted
        - beginBackgroundTask
        - endBackgroundTask
        - memoryWarning
        - setMemory
        - lock
        - unlock
        - significantTimeChange
    BackgroundMode:
      type: string
      enum: [fetch, remote-notification, audio, location, voip, processing]
    JetsamReason:
      type: string
      enum: [vm-pageshortage, per-process-limit, vnode-limit, highwater, fc-thrashing, jettisoned]

    Status:
      type: object
      required: [status]
      additionalProperties: false
      properties:
        status: { type: string, enum: [ok, ready, draining] }
    Health:
      type: object
      required: [status, version, uptimeSeconds, devices, apps]
      additionalProperties: false
      properties:
        status: { type: string, enum: [ok, draining] }
        version: { type: string }
        uptimeSeconds: { type: number, minimum: 0 }
        devices: { type: integer, minimum: 1 }
        apps: { type: integer, minimum: 0 }

    DeviceCreate:
      type: object
      required: [id]
      additionalProperties: false
      properties:
        id: { $ref: "#/components/schemas/Name" }
        clock: { type: string, enum: [manual, realtime] }
        memoryLimitMB: { type: integer, minimum: 1, maximum: 1048576 }
        perAppLimitMB: { type: integer, minimum: 1, maximum: 1048576 }
        passcode: { type: boolean }
    Device:
      type: object
      required: [id, clock, now, locked, passcode, foregroundApp, apps, memory, allowedEvents, nextDeadline, counters]
      additionalProperties: false
      properties:
        id: { $ref: "#/components/schemas/Name" }
        clock: { type: string, enum: [manual, realtime] }
        now: { $ref: "#/components/schemas/Time" }
        locked: { type: boolean }
        passcode: { type: boolean }
        foregroundApp: { type: [string, "null"] }
        apps: { type: integer, minimum: 0 }
        memory:
          type: object
          required: [usedMB, limitMB, perAppLimitMB, pressure]
          additionalProperties: false
          properties:
            usedMB: { type: integer, minimum: 0 }
            limitMB: { type: integer, minimum: 1 }
            perAppLimitMB: { type: integer, minimum: 1 }
            pressure: { type: boolean, description: Used memory exceeds the limit. }
        allowedEvents: { type: array, items: { $ref: "#/components/schemas/EventType" } }
        nextDeadline: { type: [number, "null"] }
        counters:
          type: object
          required: [events, callbacks, transitions, kills, jetsamKills, journalEntries, journalDropped]
          additionalProperties: false
          properties:
            events: { type: integer, minimum: 0 }
            callbacks: { type: integer, minimum: 0 }
            transitions: { type: integer, minimum: 0 }
            kills: { type: integer, minimum: 0 }
            jetsamKills: { type: integer, minimum: 0 }
            journalEntries: { type: integer, minimum: 0 }
            journalDropped: { type: integer, minimum: 0 }

    AppCreate:
      type: object
      required: [name]
      additionalProperties: false
      properties:
        name: { $ref: "#/components/schemas/Name" }
        lifecycle: { type: string, enum: [scene, appDelegate], default: scene }
        memoryMB: { type: integer, minimum: 0, maximum: 1048576, default: 100 }
        backgroundMemoryMB: { type: integer, minimum: 0, maximum: 1048576, description: "Default: memoryMB." }
        backgroundModes: { type: array, items: { $ref: "#/components/schemas/BackgroundMode" } }
        behavior:
          type: object
          additionalProperties: false
          properties:
            didEnterBackgroundSeconds: { type: number, minimum: 0, maximum: 86400, default: 0 }
            endsBackgroundTasksOnExpiration: { type: boolean, default: true }
    App:
      type: object
      required:
        - name
        - device
        - lifecycle
        - state
        - sceneState
        - memoryMB
        - backgroundMemoryMB
        - footprintMB
        - backgroundModes
        - behavior
        - allowedEvents
        - busyUntil
        - suspendAt
        - killAt
        - backgroundTasks
        - backgroundWork
        - significantTimeChangePending
        - backgroundLaunchBlocked
        - restorationStateSaved
        - counters
      additionalProperties: false
      properties:
        name: { $ref: "#/components/schemas/Name" }
        device: { $ref: "#/components/schemas/Name" }
        lifecycle: { type: string, enum: [scene, appDelegate] }
        state: { $ref: "#/components/schemas/AppState" }
        sceneState:
          description: "The state of the app's scene `main`; null for app-delegate apps."
          oneOf: [{ $ref: "#/components/schemas/SceneState" }, { type: "null" }]
        memoryMB: { type: integer, minimum: 0 }
        backgroundMemoryMB: { type: integer, minimum: 0 }
        footprintMB: { type: integer, minimum: 0 }
        backgroundModes: { type: array, items: { $ref: "#/components/schemas/BackgroundMode" } }
        behavior:
          type: object
          required: [didEnterBackgroundSeconds, endsBackgroundTasksOnExpiration]
          additionalProperties: false
          properties:
            didEnterBackgroundSeconds: { type: number, minimum: 0 }
            endsBackgroundTasksOnExpiration: { type: boolean }
        allowedEvents: { type: array, items: { $ref: "#/components/schemas/EventType" } }
        busyUntil: { type: [number, "null"], description: didEnterBackground executes until then. }
        suspendAt: { type: [number, "null"] }
        killAt: { type: [number, "null"], description: "When the watchdog, an unended expired task or unfinished background work kills the app." }
        backgroundTasks:
          type: array
          items:
            type: object
            required: [id, name, expiresAt, expired]
            additionalProperties: false
            properties:
              id: { type: integer, format: int64, minimum: 1, maximum: 9223372036854775807 }
              name: { type: [string, "null"] }
              expiresAt: { type: [number, "null"], description: Null while the app is in the foreground. }
              expired: { type: boolean }
        backgroundWork:
          oneOf:
            - type: "null"
            - type: object
              required: [reason, deadline]
              additionalProperties: false
              properties:
                reason: { type: string, enum: [fetch, remoteNotification, location, processing] }
                deadline: { $ref: "#/components/schemas/Time" }
        significantTimeChangePending: { type: boolean }
        backgroundLaunchBlocked: { type: boolean, description: The user force-quit the app. }
        restorationStateSaved: { type: boolean }
        counters:
          type: object
          required: [launches, kills]
          additionalProperties: false
          properties:
            launches: { type: integer, minimum: 0 }
            kills: { type: integer, minimum: 0 }

    AppEvent:
      description: One app event; each type takes only the parameters listed with it.
      oneOf:
        - title: launch
          description: "The user opens the app (cold launch, or back from background or suspension)."
          type: object
          required: [type]
          additionalProperties: false
          properties:
            type: { const: launch }
            url: { type: string, minLength: 1, maxLength: 2048 }
        - title: home
          description: "The user goes to the home screen."
          type: object
          required: [type]
          additionalProperties: false
          properties:
            type: { const: home }
        - title: openSwitcher
          description: "The app switcher shows over the app."
          type: object
          required: [type]
          additionalProperties: false
          properties:
            type: { const: openSwitcher }
        - title: closeSwitcher
          description: "The switcher is dismissed back to the app."
          type: object
          required: [type]
          additionalProperties: false
          properties:
            type: { const: closeSwitcher }
        - title: interruptionBegan
          description: "A call, alert, Notification or Control Center, or Siri covers the app."
          type: object
          required: [type, source]
          additionalProperties: false
          properties:
            type: { const: interruptionBegan }
            source: { type: string, enum: [call, alert, notificationCenter, controlCenter, siri] }
        - title: interruptionEnded
          description: "The interruption ends: back to the app, or the app goes to the background (a call accepted)."
          type: object
          required: [type]
          additionalProperties: false
          properties:
            type: { const: interruptionEnded }
            outcome: { type: string, enum: [resumed, backgrounded], default: resumed }
        - title: terminate
          description: "The user force-quits the app from the switcher."
          type: object
          required: [type]
          additionalProperties: false
          properties:
            type: { const: terminate }
        - title: crash
          description: "The process dies; no callbacks."
          type: object
          required: [type]
          additionalProperties: false
          properties:
            type: { const: crash }
        - title: purge
          description: "The system kills the app to reclaim memory; no callbacks."
          type: object
          required: [type]
          additionalProperties: false
          properties:
            type: { const: purge }
            reason: { $ref: "#/components/schemas/JetsamReason" }
        - title: backgroundLaunch
          description: "The system launches or wakes the app in the background; needs the matching background mode."
          type: object
          required: [type, reason]
          additionalProperties: false
          properties:
            type: { const: backgroundLaunch }
            reason: { type: string, enum: [fetch, remoteNotification, location, processing] }
        - title: backgroundWorkCompleted
          description: "The app calls the completion handler of its background work."
          type: object
          required: [type]
          additionalProperties: false
          properties:
            type: { const: backgroundWorkCompleted }
        - title: beginBackgroundTask
          description: "The app begins a background task; the result carries its id."
          type: object
          required: [type]
          additionalProperties: false
          properties:
            type: { const: beginBackgroundTask }
            name: { type: string, maxLength: 256 }
        - title: endBackgroundTask
          description: "The app ends a background task."
          type: object
          required: [type, id]
          additionalProperties: false
          properties:
            type: { const: endBackgroundTask }
            id: { type: integer, format: int64, minimum: 1, maximum: 9223372036854775807 }
        - title: memoryWarning
          description: "A memory warning to this app."
          type: object
          required: [type]
          additionalProperties: false
          properties:
            type: { const: memoryWarning }
        - title: setMemory
          description: "The app's footprint in its current phase (foreground or background) changes."
          type: object
          required: [type, memoryMB]
          additionalProperties: false
          properties:
            type: { const: setMemory }
            memoryMB: { type: integer, minimum: 0, maximum: 1048576 }
    DeviceEvent:
      type: object
      required: [type]
      additionalProperties: false
      properties:
        type: { type: string, enum: [home, memoryWarning, lock, unlock, significantTimeChange] }

    Callback:
      type: object
      required: [seq, time, app, scene, method, notifications, state]
      additionalProperties: false
      properties:
        seq: { type: integer, minimum: 1, description: Position in the device's journal. }
        time: { $ref: "#/components/schemas/Time" }
        app: { $ref: "#/components/schemas/Name" }
        scene: { type: [string, "null"], description: The scene of a UISceneDelegate callback. }
        method: { type: string, examples: ["sceneDidEnterBackground(_:)"] }
        notifications: { type: array, items: { type: string } }
        state: { $ref: "#/components/schemas/AppState" }
        sceneState: { $ref: "#/components/schemas/SceneState" }
        taskId: { type: integer, minimum: 1, description: The task of an expirationHandler. }
    Transition:
      type: object
      required: [seq, time, app, from, to, cause]
      additionalProperties: false
      properties:
        seq: { type: integer, minimum: 1 }
        time: { $ref: "#/components/schemas/Time" }
        app: { $ref: "#/components/schemas/Name" }
        from: { $ref: "#/components/schemas/AppState" }
        to: { $ref: "#/components/schemas/AppState" }
        cause:
          type: string
          description: "The event type, or suspension, watchdog, backgroundTaskExpiration, backgroundWorkTimeout, jetsam."
        terminationCode: { type: string, enum: ["0x8badf00d", "0x2182bad2"] }
        jetsamReason: { $ref: "#/components/schemas/JetsamReason" }
    EventResponse:
      type: object
      required: [device, app, event, previousState, state, callbacks, transitions, effects, result]
      additionalProperties: false
      properties:
        device: { $ref: "#/components/schemas/Name" }
        app: { type: [string, "null"], description: Null for device events. }
        event: { type: object }
        previousState: { type: string, description: "The app's state, or for device events locked or unlocked." }
        state: { type: string }
        callbacks: { type: array, items: { $ref: "#/components/schemas/Callback" } }
        transitions: { type: array, items: { $ref: "#/components/schemas/Transition" } }
        effects:
          type: array
          items:
            type: object
            required: [app, previousState, state]
            additionalProperties: false
            properties:
              app: { $ref: "#/components/schemas/Name" }
              previousState: { $ref: "#/components/schemas/AppState" }
              state: { $ref: "#/components/schemas/AppState" }
        result:
          oneOf:
            - type: "null"
            - type: object
              required: [taskId, expiresAt]
              additionalProperties: false
              properties:
                taskId: { type: integer, minimum: 1 }
                expiresAt: { type: [number, "null"] }
    ScenarioResponse:
      type: object
      required: [results]
      additionalProperties: false
      properties:
        results: { type: array, items: { $ref: "#/components/schemas/EventResponse" } }

    Clock:
      type: object
      required: [device, clock, now, nextDeadline]
      additionalProperties: false
      properties:
        device: { $ref: "#/components/schemas/Name" }
        clock: { type: string, enum: [manual, realtime] }
        now: { $ref: "#/components/schemas/Time" }
        nextDeadline: { type: [number, "null"] }
    ClockAdvance:
      type: object
      required: [advanced, now, callbacks, transitions]
      additionalProperties: false
      properties:
        advanced: { type: number, minimum: 0 }
        now: { $ref: "#/components/schemas/Time" }
        callbacks: { type: array, items: { $ref: "#/components/schemas/Callback" } }
        transitions: { type: array, items: { $ref: "#/components/schemas/Transition" } }
    Journal:
      type: object
      required: [entries, dropped]
      additionalProperties: false
      properties:
        entries:
          type: array
          items:
            type: object
            required: [kind]
            properties:
              kind: { type: string, enum: [event, callback, transition] }
              callback: { $ref: "#/components/schemas/Callback" }
              transition: { $ref: "#/components/schemas/Transition" }
              seq: { type: integer }
              time: { $ref: "#/components/schemas/Time" }
              app: { type: [string, "null"] }
              event: { type: object }
        dropped: { type: integer, minimum: 0, description: Older entries the bounded journal dropped. }
    JetsamLog:
      type: object
      required: [kills, dropped]
      additionalProperties: false
      properties:
        kills:
          type: array
          items:
            type: object
            required: [time, app, reason, footprintMB, state]
            additionalProperties: false
            properties:
              time: { $ref: "#/components/schemas/Time" }
              app: { $ref: "#/components/schemas/Name" }
              reason: { $ref: "#/components/schemas/JetsamReason" }
              footprintMB: { type: integer, minimum: 0 }
              state: { $ref: "#/components/schemas/AppState" }
        dropped: { type: integer, minimum: 0 }

    Problem:
      description: An RFC 9457 problem document.
      type: object
      required: [type, title, status, detail]
      properties:
        type: { type: string, examples: ["urn:lifecycled:problem:not-found", "about:blank"] }
        title: { type: string }
        status: { type: integer }
        detail: { type: string }
    ValidationProblem:
      allOf:
        - $ref: "#/components/schemas/Problem"
        - type: object
          required: [validation]
          properties:
            validation:
              type: array
              items:
                type: object
                required: [field, message]
                additionalProperties: false
                properties:
                  field: { type: string, examples: ["behavior.didEnterBackgroundSeconds", "[2].type"] }
                  message: { type: string }
    RefusalProblem:
      allOf:
        - $ref: "#/components/schemas/Problem"
        - type: object
          required: [event, currentState, allowedEvents]
          properties:
            event: { $ref: "#/components/schemas/EventType" }
            currentState: { type: string }
            allowedEvents: { type: array, items: { $ref: "#/components/schemas/EventType" } }
            failedIndex: { type: integer, minimum: 0, description: In a scenario, the refused event. }
            results:
              type: array
              description: In a scenario, the events applied before the refusal.
              items: { $ref: "#/components/schemas/EventResponse" }
"""##
}
