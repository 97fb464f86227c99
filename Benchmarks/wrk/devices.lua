-- Requests spread over the devices d0 ... d299 of Benchmarks/routerbench, each with the app
-- "app": `wrk ... -s devices.lua URL -- post` posts [launch, home] (valid from any state the
-- previous visit left), `-- get` reads the device. Each connection starts at its own device.
local devices = 300
local counter = 0
local post = true
local scenario = '[{"type":"launch"},{"type":"home"}]'

init = function(args)
  post = args[1] ~= "get"
  counter = math.random(devices)
end

request = function()
  counter = counter + 1
  local device = "/v1/devices/d" .. (counter % devices)
  if post then
    return wrk.format("POST", device .. "/apps/app/events",
      { ["Content-Type"] = "application/json" }, scenario)
  end
  return wrk.format("GET", device)
end
