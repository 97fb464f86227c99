-- POST events for Benchmarks/httpbench: every request is a scenario valid from whatever state the
-- previous one left (the server applies each request atomically), so none is refused. The 64
-- apps take turns; an app's odd visits post [launch, beginBackgroundTask, home] (it leaves with
-- a background task running), its even visits [launch, home, terminate] (force-quit, which ends
-- the task). Every fourth request posts [lock, unlock] to the device instead.
local counter = 0
local first_visit = '[{"type":"launch"},{"type":"beginBackgroundTask","name":"upload"},{"type":"home"}]'
local second_visit = '[{"type":"launch"},{"type":"home"},{"type":"terminate"}]'
local device_scenario = '[{"type":"lock"},{"type":"unlock"}]'

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

request = function()
  counter = counter + 1
  if counter % 4 == 0 then
    return wrk.format(nil, "/v1/devices/bench/events", nil, device_scenario)
  end
  local app = counter % 64
  local scenario = math.floor(counter / 64) % 2 == 0 and first_visit or second_visit
  return wrk.format(nil, "/v1/devices/bench/apps/app" .. app .. "/events", nil, scenario)
end
