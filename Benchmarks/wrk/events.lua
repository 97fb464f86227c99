-- POST /events for scripts/httpbench: every request is a scenario valid from whatever state the
-- previous one left (the server applies each request atomically), so none is refused:
-- [launch, home] on 64 apps in turn, and every fourth request [lock, unlock] on the device.
local counter = 0
local app_scenario = '[{"type":"launch"},{"type":"home"}]'
local device_scenario = '[{"type":"lock"},{"type":"unlock"}]'

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

request = function()
  counter = counter + 1
  if counter % 4 == 0 then
    return wrk.format(nil, "/v1/devices/bench/events", nil, device_scenario)
  end
  return wrk.format(nil, "/v1/devices/bench/apps/app" .. (counter % 64) .. "/events", nil, app_scenario)
end
