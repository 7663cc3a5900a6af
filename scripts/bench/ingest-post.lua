-- wrk script: one blood-pressure reading per request, each with a new measurementId, spread over 1,000 patients.
-- Arguments: the bearer token (a service client with patients:write), and a run number that keeps the ids of
-- successive runs apart (a re-sent id would be a cheaper duplicate).
dofile("scripts/bench/wrk-answers.lua")

function init(args)
  counter = 0
  run = tonumber(args[2] or "0") or 0
  headers = headers_for(args[1], "application/json")
end

function request()
  counter = counter + 1
  local id = string.format("%08x-%04x-4000-8000-%012x", thread_number, run % 65536, counter)
  local patient = "bench-" .. (counter % 1000)
  local body = string.format(
    '{"measurementId":"%s","systolic":%d,"diastolic":%d,"takenAt":"2026-11-20T08:00:00Z"}',
    id, 110 + counter % 60, 70 + counter % 30)
  return wrk.format("POST", "/v1/patients/" .. patient .. "/measurements/blood-pressure", headers, body)
end
