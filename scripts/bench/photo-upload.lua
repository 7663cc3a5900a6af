-- wrk script: one skin photo per request (the same file each time), each under a new photoId, spread over 100 patients.
-- Arguments: the bearer token (a service client with patients:write), the photo's path, a run number that keeps
-- the ids of successive runs apart (a re-sent id with the same bytes would be a cheaper duplicate), and the photo's
-- content type (image/jpeg unless given).
dofile("scripts/bench/wrk-answers.lua")

function init(args)
  counter = 0
  run = tonumber(args[3] or "0") or 0
  local file = assert(io.open(args[2], "rb"))
  photo = file:read("*a")
  file:close()
  headers = headers_for(args[1], args[4] or "image/jpeg")
end

function request()
  counter = counter + 1
  local id = string.format("%08x-%04x-4000-8000-%012x", thread_number, run % 65536, counter)
  local patient = "bench-" .. (counter % 100)
  local path = "/v1/patients/" .. patient .. "/photos/" .. id .. "?bodySite=forearm&side=left&takenAt=2026-11-20T08:00:00Z"
  return wrk.format("PUT", path, headers, photo)
end
