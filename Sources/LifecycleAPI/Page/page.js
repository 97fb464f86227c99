// The live page of lifecycled (GET /): the devices, the selected device's apps and timeline,
// kept current by the device's journal stream, and forms that post events, move the clock and
// add devices and apps. It calls the API as any client does (openapi.yaml), from the server's
// own origin, with the bearer token typed into the page when the server has one.

/** What the page holds between requests. */
const page = {
  /** The bearer token, kept for this tab's session. */
  token: sessionStorage.getItem("lifecycled.token") ?? "",
  /** The selected device's id, from the address's fragment. */
  device: null,
  /** The selected device's view and its apps', as last read, and the device's version then. */
  deviceView: null,
  apps: [],
  version: null,
  /** Stops following the selected device's stream. */
  following: null,
  /** Whether a read of the device is under way, and whether it is already out of date. */
  reading: false,
  stale: false,
  /** The last device listed: the next page of devices starts after it. */
  lastListed: null,
};

/** How many streamed entries the page lists; older ones leave the list. */
const latestEntries = 50;
/** How many devices a read lists at first, and at most (the API's largest page). */
const devicesPerPage = 100;
const mostDevices = 10_000;

const element = (id) => document.getElementById(id);
const pause = (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds));
const devicePath = (id = page.device) => `/v1/devices/${encodeURIComponent(id)}`;
const seconds = (time) => `${Number(time).toFixed(3)} s`;
const count = (number, noun) => `${number} ${noun}${number === 1 ? "" : "s"}`;

/** A response other than 2xx: its status, and the problem document's words. */
class Refusal extends Error {
  constructor(status, problem) {
    super(problem?.detail ?? problem?.title ?? `the server answered ${status}`);
    this.status = status;
  }
}

/** Sends a request to the API, with the token if there is one; a refusal is thrown. */
async function call(method, path, { body, accept = "application/json", headers, signal } = {}) {
  const fields = { Accept: accept, ...headers };
  if (page.token) fields.Authorization = `Bearer ${page.token}`;
  if (body !== undefined) fields["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers: fields,
    signal,
    cache: "no-store",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.ok) return response;
  const isProblem = response.headers.get("Content-Type")?.startsWith("application/problem+json");
  throw new Refusal(response.status, isProblem ? await response.json() : null);
}

const read = async (path) => (await call("GET", path)).json();

/** Shows `text` in the status line, as an error or not. */
function say(text, isError = false) {
  const status = element("status");
  status.textContent = text;
  status.classList.toggle("error", isError);
}

function report(error) {
  if (error.name === "AbortError") return;
  if (error instanceof Refusal && error.status === 401) {
    say("This server needs its bearer token: type it above.", true);
    element("token").focus();
  } else {
    say(error.message, true);
  }
}

/** An element with text and children; text is never read as HTML. */
function make(tag, { text, className } = {}, ...children) {
  const made = document.createElement(tag);
  if (text !== undefined) made.textContent = text;
  if (className) made.className = className;
  made.append(...children);
  return made;
}

// Devices

/** Lists the devices again, as many as are listed (a page at least), or `more`: the page after
 *  those listed. A list the server does not give (the scale-out router lists no devices: each
 *  replica has its own) is replaced by its reason; the device the address names still shows. */
async function listDevices({ more = false } = {}) {
  const list = element("devices");
  const listed = Math.min(mostDevices, Math.max(devicesPerPage, list.children.length));
  const query = new URLSearchParams({ limit: String(more ? devicesPerPage : listed) });
  if (more && page.lastListed !== null) query.set("after", page.lastListed);
  let devices, hasMore;
  try {
    ({ devices, hasMore } = await read(`/v1/devices?${query}`));
  } catch (error) {
    if (!(error instanceof Refusal) || error.status === 401) throw error;
    list.replaceChildren(make("li", { text: error.message, className: "note" }));
    element("more-devices").hidden = true;
    return;
  }
  if (!more) {
    list.replaceChildren();
    page.lastListed = null;
  }
  for (const device of devices) {
    const button = make(
      "button",
      { text: device.id },
      make("small", { text: `${device.clock} clock, ${count(device.apps, "app")}` }),
    );
    button.type = "button";
    button.dataset.device = device.id;
    button.addEventListener("click", () => select(device.id));
    list.append(make("li", {}, button));
  }
  page.lastListed = devices.at(-1)?.id ?? page.lastListed;
  element("more-devices").hidden = !hasMore;
  markSelected();
}

function markSelected() {
  for (const button of element("devices").querySelectorAll("button")) {
    if (button.dataset.device === page.device) button.setAttribute("aria-current", "true");
    else button.removeAttribute("aria-current");
  }
}

/** Selects a device by its address, so that the page can be reloaded or linked to. */
function select(id) {
  location.hash = encodeURIComponent(id);
}

/** The device the address's fragment names; `default` without one, or with one that is not
 *  percent-encoded text. */
function selectedInAddress() {
  try {
    return decodeURIComponent(location.hash.slice(1)) || "default";
  } catch {
    return "default";
  }
}

/** Shows the device the address names, and follows its journal. */
function open(id) {
  page.following?.abort();
  page.following = new AbortController();
  page.device = id;
  page.deviceView = null;
  page.version = null;
  page.apps = [];
  element("device-title").textContent = id;
  element("latest").replaceChildren();
  markSelected();
  refresh();
  follow(id, page.following.signal);
}

/** Reads the selected device again: one read at a time, and one more after it for whatever
 *  happened while it ran, four a second at most on a busy device. */
async function refresh() {
  if (page.reading) {
    page.stale = true;
    return;
  }
  page.reading = true;
  try {
    for (;;) {
      page.stale = false;
      await readDevice();
      if (!page.stale) break;
      await pause(250);
    }
  } catch (error) {
    report(error);
  } finally {
    page.reading = false;
  }
}

/** Reads the device, and its apps and timeline unless nothing happened on it since the last
 *  read: the same version (its `ETag`, new with every entry, never repeated by a reset or
 *  re-created device) and its clock where it was. An idle device costs one small read. */
async function readDevice() {
  const id = page.device;
  const path = devicePath(id);
  const response = await call("GET", path);
  const device = await response.json();
  if (id !== page.device) return; // another device was selected meanwhile
  const version = `${response.headers.get("ETag")} ${device.now}`;
  page.deviceView = device;
  showDevice(device);
  if (version === page.version) return;
  const [apps, timeline] = await Promise.all([
    read(`${path}/apps?limit=1000`),
    call("GET", `${path}/timeline.svg`, { accept: "image/svg+xml" }).then((r) => r.text()),
  ]);
  if (id !== page.device) return;
  page.version = version;
  page.apps = apps.apps;
  showApps(apps);
  showTimeline(timeline);
  offerEvents();
}

function showDevice(device) {
  const facts = [
    `${device.model} on iOS ${device.osVersion} (${device.osBuild})`,
    `${device.clock} clock at ${seconds(device.now)}`,
    device.poweredOn ? (device.locked ? "locked" : "unlocked") : "powered off",
    `foreground: ${device.foregroundApp ?? "none"}`,
    `memory ${device.memory.usedMB} of ${device.memory.limitMB} MB`,
    device.nextDeadline === null
      ? "no deadline pending"
      : `next deadline at ${seconds(device.nextDeadline)}`,
  ];
  element("device-summary").textContent = facts.join(" · ");
  element("to-next-deadline").disabled = device.nextDeadline === null;
}

function showApps({ apps, hasMore }) {
  const rows = apps.map((app) => {
    const next = [
      app.suspendAt === null ? null : `suspends at ${seconds(app.suspendAt)}`,
      app.killAt === null ? null : `killed at ${seconds(app.killAt)}`,
    ].filter((fact) => fact !== null);
    return make(
      "tr",
      {},
      make("th", { text: app.name }),
      make("td", {}, make("span", { text: app.state, className: `state ${app.state}` })),
      make("td", { text: app.scenes.map((scene) => `${scene.id}: ${scene.state}`).join(", ") }),
      make("td", { text: `${app.footprintMB} MB` }),
      make("td", { text: next.length > 0 ? next.join(", ") : "none" }),
    );
  });
  if (hasMore) rows.push(make("tr", {}, make("td", { text: "and more apps" })));
  element("apps").tBodies[0].replaceChildren(...rows);
}

/** Draws the server's SVG in the page, where its marks' titles show on hover. The server
 *  escapes every text in it, and the page's policy runs no script but its own. */
function showTimeline(svg) {
  const picture = new DOMParser().parseFromString(svg, "image/svg+xml").documentElement;
  element("timeline").replaceChildren(document.importNode(picture, true));
}

// Following the journal

/** Follows the device's journal stream until `signal` aborts, from its latest entries: each
 *  entry is listed and the device read again. A stream that ends or breaks is opened again
 *  after its last event. */
async function follow(id, signal) {
  let lastEventID = null;
  let since = null;
  let failures = 0;
  while (!signal.aborted) {
    try {
      since ??= Math.max(0, (await read(devicePath(id))).lastSeq - latestEntries);
      const headers = lastEventID === null ? {} : { "Last-Event-ID": lastEventID };
      const response = await call("GET", `${devicePath(id)}/journal/stream?since=${since}`, {
        accept: "text/event-stream",
        headers,
        signal,
      });
      showConnection("live");
      failures = 0;
      for await (const message of serverSentEvents(response.body)) {
        if (message.id !== null) lastEventID = message.id;
        if (message.event === "end") {
          const { reason } = JSON.parse(message.data);
          if (reason === "deviceRemoved") {
            say(`Device ${id} was removed.`);
            listDevices().catch(report);
            select("default");
            return;
          }
          if (reason === "deviceReset") {
            lastEventID = null; // its journal starts over
            since = 0;
            element("latest").replaceChildren();
          }
        } else if (message.event === null) {
          listEntry(JSON.parse(message.data));
        }
        refresh();
      }
    } catch (error) {
      if (signal.aborted) return;
      report(error);
      if (error instanceof Refusal && error.status !== 503) {
        showConnection("stopped");
        return;
      }
    }
    showConnection("reconnecting");
    await pause(Math.min(5000, 250 * 2 ** failures++));
  }
}

function showConnection(state) {
  const connection = element("connection");
  connection.textContent = state;
  connection.className = `connection ${state}`;
}

/** The events of a `text/event-stream` body, as `{id, event, data}`; comments (the
 *  heartbeats) are left out. Lines end with LF alone, as the server writes them. */
async function* serverSentEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const message = { id: null, event: null, data: [] };
      for (const line of buffer.slice(0, end).split("\n")) {
        const colon = line.indexOf(":");
        if (colon === 0) continue;
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") message.data.push(value);
        else if (field === "id" || field === "event") message[field] = value;
      }
      buffer = buffer.slice(end + 2);
      if (message.data.length > 0) yield { ...message, data: message.data.join("\n") };
    }
  }
}

/** Lists an entry at the top of the latest entries: its time, whose it is, what it was. */
function listEntry(entry) {
  let time, who, what;
  switch (entry.kind) {
    case "event":
      ({ time } = entry);
      who = entry.app ?? "device";
      what = entry.event.type;
      break;
    case "callback": {
      const { app, scene } = entry.callback;
      ({ time, method: what } = entry.callback);
      who = scene === null ? app : `${app} (${scene})`;
      break;
    }
    case "transition":
      ({ time, app: who } = entry.transition);
      what = `${entry.transition.from} → ${entry.transition.to} (${entry.transition.cause})`;
      break;
  }
  const list = element("latest");
  list.prepend(
    make(
      "li",
      { className: entry.kind },
      make("time", { text: seconds(time) }),
      make("span", { text: who }),
      make("code", { text: what }),
    ),
  );
  while (list.children.length > latestEntries) list.lastElementChild.remove();
}

// Forms

/** Fills the event form: the device and its apps as targets, and the events the chosen one
 *  takes now (its view's `allowedEvents`), keeping what was chosen where it still can be. */
function offerEvents() {
  const apps = page.apps.map((app) => [app.name, app.name]);
  offer(element("event-target"), [["", "the device"], ...apps]);
  offerEventTypes();
}

function offerEventTypes() {
  const name = element("event-target").value;
  const view = name === "" ? page.deviceView : page.apps.find((app) => app.name === name);
  offer(element("event-type"), (view?.allowedEvents ?? []).map((type) => [type, type]));
}

/** Gives a select these `[value, text]` options, unless it has them already (a list rebuilt
 *  while open would close), keeping the chosen one where it still is. */
function offer(select, options) {
  const current = [...select.options].map((option) => [option.value, option.text]);
  if (JSON.stringify(current) === JSON.stringify(options)) return;
  const chosen = select.value;
  select.replaceChildren(...options.map(([value, text]) => new Option(text, value)));
  if (options.some(([value]) => value === chosen)) select.value = chosen;
}

/** Runs a form's submission as a request: its fields are disabled while it runs, and the
 *  outcome is said in the status line. */
function onSubmit(formID, action) {
  const form = element(formID);
  const fields = form.querySelector("fieldset");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const values = new FormData(form, event.submitter);
    fields.disabled = true;
    try {
      say(await action(values));
    } catch (error) {
      report(error);
    } finally {
      fields.disabled = false;
    }
  });
}

/** The "more members" field: nothing, or a JSON object. */
function members(text) {
  if (text.trim() === "") return {};
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    value = null;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new Error(`More members must be a JSON object, such as {"reason": "highwater"}`);
  }
  return value;
}

onSubmit("event-form", async (form) => {
  const body = { ...members(form.get("members")), type: form.get("type") };
  const app = form.get("target");
  const target = app === "" ? devicePath() : `${devicePath()}/apps/${encodeURIComponent(app)}`;
  const result = await (await call("POST", `${target}/events`, { body })).json();
  refresh();
  return `${app || "device"} ${body.type}: ${result.previousState} → ${result.state}, ` +
    count(result.callbacks.length, "callback");
});

onSubmit("clock-form", async (form) => {
  const body = form.has("to") ? { to: form.get("to") } : { seconds: Number(form.get("seconds")) };
  const result = await (await call("POST", `${devicePath()}/clock/advance`, { body })).json();
  refresh();
  const callbacks = count(result.callbacks.length, "callback");
  const transitions = count(result.transitions.length, "transition");
  return `The clock moved ${seconds(result.advanced)}, to ${seconds(result.now)}: ` +
    `${callbacks}, ${transitions}`;
});

onSubmit("app-form", async (form) => {
  const body = { name: form.get("name") };
  await call("POST", `${devicePath()}/apps`, { body });
  element("app-form").reset();
  refresh();
  return `App ${body.name} created.`;
});

onSubmit("device-form", async (form) => {
  const body = { id: form.get("id"), clock: form.get("clock") };
  await call("POST", "/v1/devices", { body });
  element("device-form").reset();
  await listDevices();
  select(body.id);
  return `Device ${body.id} created.`;
});

element("event-target").addEventListener("change", offerEventTypes);

element("more-devices").addEventListener("click", () => listDevices({ more: true }).catch(report));

element("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  page.token = element("token").value;
  sessionStorage.setItem("lifecycled.token", page.token);
  say("");
  listDevices().catch(report);
  open(page.device);
});

// Start: the devices, the one the address names, and the device list kept fresh (another
// client may add or remove devices; the stream tells only of the selected one).

element("token").value = page.token;
window.addEventListener("hashchange", () => open(selectedInAddress()));
listDevices().catch(report);
open(selectedInAddress());
setInterval(() => {
  if (document.visibilityState !== "visible") return;
  listDevices().catch(report);
  refresh();
}, 5000);
